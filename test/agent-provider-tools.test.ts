/**
 * Tools the provider runs itself (`providerExecuted`: OpenAI's and Anthropic's web search) and the
 * sources the model cites: their call and result stay in the step's assistant message, as in the
 * AI SDK's history, and show in the step results, the events and the adapter's stream as
 * `ToolLoopAgent` shows them. (Run once per step implementation: see vitest.config.ts.)
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { openai } from '@ai-sdk/openai';
import { ToolLoopAgent, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { expectValidHistory } from './support/history.js';

const usage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: undefined, reasoning: undefined },
};

const searchResult = { action: { type: 'search', query: 'xstate v5' }, sources: [{ type: 'url', url: 'https://stately.ai/docs' }] };

/** One call: a provider-executed web search, its result, a source and the answer. */
const searchTurn = (): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{}', providerExecuted: true },
  { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: searchResult },
  { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://stately.ai/docs', title: 'XState docs' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'XState v5 is out.' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

const answerTurn = (): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't2' },
  { type: 'text-delta', id: 't2', delta: 'Yes.' },
  { type: 'text-end', id: 't2' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

/** A model that streams the turns in order and records the prompts it was sent. */
function scripted(turns: Array<() => LanguageModelV4StreamPart[]>) {
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  let call = 0;
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      prompts.push(options.prompt);
      const parts = turns[call++]!();
      return { stream: new ReadableStream({ start: (controller) => (parts.forEach((part) => controller.enqueue(part)), controller.close()) }) };
    },
  });
  return { model, prompts };
}

const tools = (): ToolSet => ({ web_search: openai.tools.webSearch({}) });

/** Plain JSON: what an app or a UI sees (undefined fields gone, errors as their fields). */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const SHOWN = new Set(['tool-call', 'tool-result', 'tool-error', 'source', 'text-delta']);

async function streamed(agent: { stream: (options: { prompt: string }) => PromiseLike<{ fullStream: AsyncIterable<TextStreamPart<ToolSet>>; steps: PromiseLike<unknown[]> }> }) {
  const result = await agent.stream({ prompt: 'Is XState v5 out?' });
  const parts: TextStreamPart<ToolSet>[] = [];
  for await (const part of result.fullStream) parts.push(part);
  const steps = (await result.steps) as Array<{ content: unknown[]; sources: unknown[]; toolCalls: unknown[]; toolResults: unknown[]; response: { messages: ModelMessage[] } }>;
  return { parts: json(parts.filter((part) => SHOWN.has(part.type)).map((part) => (part.type === 'text-delta' ? { type: part.type, text: part.text } : part))), steps };
}

describe('provider-executed tools and sources', () => {
  it('keep the call and its result in the assistant message, run nothing, and report call, result and source as events', async () => {
    const { model } = scripted([searchTurn]);
    const agent = createAgent({ model, tools: tools() });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));

    const result = await agent.run('Is XState v5 out?');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('XState v5 is out.');
    expect(agent.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: {}, providerExecuted: true },
        { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', output: { type: 'json', value: searchResult } },
        { type: 'text', text: 'XState v5 is out.' },
      ],
    });
    // One step, no tool message: the provider answered its own call.
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    await expectValidHistory(agent.messages);

    const runId = (events.find((event) => event.type === 'run-start') as { runId: string }).runId;
    const kinds = events.map((event) => event.type);
    expect(kinds).not.toContain('tool-execution-start');
    expect(kinds).not.toContain('tool-call');
    expect(events.filter((event) => event.type === 'provider-tool-call' || event.type === 'provider-tool-result' || event.type === 'source')).toEqual([
      { type: 'provider-tool-call', runId, step: 1, attempt: 1, toolCallId: 'ws_1', toolName: 'web_search', input: {} },
      { type: 'provider-tool-result', runId, step: 1, attempt: 1, toolCallId: 'ws_1', toolName: 'web_search', output: searchResult, isError: false },
      { type: 'source', runId, step: 1, attempt: 1, source: { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://stately.ai/docs', title: 'XState docs' } },
    ]);

    const [step] = result.steps;
    expect(step!.content.map((part) => part.type)).toEqual(['tool-call', 'tool-result', 'source', 'text']);
    expect(step!.sources).toEqual([{ type: 'source', sourceType: 'url', id: 'src-1', url: 'https://stately.ai/docs', title: 'XState docs' }]);
    expect(step!.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'ws_1', providerExecuted: true })]);
    expect(step!.toolResults).toEqual([expect.objectContaining({ toolCallId: 'ws_1', providerExecuted: true, input: {}, output: searchResult })]);
    expect(step!.response.messages.map((message) => message.role)).toEqual(['assistant']);
  });

  it('the adapter reports what ToolLoopAgent reports: stream parts, step content, sources and response messages', async () => {
    const toolLoop = await streamed(new ToolLoopAgent({ model: scripted([searchTurn]).model, tools: tools() }));
    const loopchart = await streamed(toAISDKAgent(createAgent({ model: scripted([searchTurn]).model, tools: tools() })));

    expect(loopchart.parts).toEqual(toolLoop.parts);
    expect((loopchart.parts as Array<{ type: string }>).map((part) => part.type)).toEqual(['tool-call', 'tool-result', 'source', 'text-delta']);
    expect(loopchart.steps).toHaveLength(1);
    const [mine, theirs] = [loopchart.steps[0]!, toolLoop.steps[0]!];
    expect(json(mine.content)).toEqual(json(theirs.content));
    expect(json(mine.sources)).toEqual(json(theirs.sources));
    expect(mine.sources).toHaveLength(1);
    expect(json(mine.toolCalls)).toEqual(json(theirs.toolCalls));
    expect(json(mine.toolResults)).toEqual(json(theirs.toolResults));
    expect(json(mine.response.messages)).toEqual(json(theirs.response.messages));
    expect(mine.response.messages[0]!.content).toHaveLength(3);
  });

  it('a second run sends the search call and its result back to the model, as ToolLoopAgent sends its history', async () => {
    const mine = scripted([searchTurn, answerTurn]);
    const agent = createAgent({ model: mine.model, tools: tools() });
    await agent.run('Is XState v5 out?');
    const second = await agent.run('Sure?');
    expect(second.outcome).toBe('completed');
    expect(second.text).toBe('Yes.');

    const theirs = scripted([searchTurn, answerTurn]);
    const toolLoop = new ToolLoopAgent({ model: theirs.model, tools: tools() });
    const first = await toolLoop.stream({ prompt: 'Is XState v5 out?' });
    await first.consumeStream();
    const history: ModelMessage[] = [{ role: 'user', content: 'Is XState v5 out?' }, ...(await first.response).messages, { role: 'user', content: 'Sure?' }];
    const again = await toolLoop.stream({ messages: history });
    await again.consumeStream();

    expect(mine.prompts).toHaveLength(2);
    expect(json(mine.prompts[1])).toEqual(json(theirs.prompts.at(-1)));
    const assistant = mine.prompts[1]!.find((message) => message.role === 'assistant')!;
    expect((assistant.content as Array<{ type: string }>).map((part) => part.type)).toEqual(['tool-call', 'tool-result', 'text']);
  });
});
