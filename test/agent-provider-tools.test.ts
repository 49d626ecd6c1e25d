/**
 * Tools the provider runs itself (`providerExecuted`: OpenAI's and Anthropic's web search) and the
 * sources the model cites: their call and result stay in the step's assistant message, as in the
 * AI SDK's history, and show in the step results, the events and the adapter's stream as
 * `ToolLoopAgent` shows them. (Run once per step implementation: see vitest.config.ts.)
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { openai } from '@ai-sdk/openai';
import { ToolLoopAgent, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { expectValidHistory } from './support/history.js';
import { scriptedUsage as usage, streamPartsModel as scripted, textTurn } from './support/stream-parts-model.js';

const searchResult = { action: { type: 'search', query: 'xstate v5' }, sources: [{ type: 'url', url: 'https://stately.ai/docs' }] };

/** One call: a provider-executed web search, its result, a source and the answer. */
const searchTurn = (): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-input-start', id: 'ws_1', toolName: 'web_search', providerExecuted: true },
  { type: 'tool-input-delta', id: 'ws_1', delta: '{}' },
  { type: 'tool-input-end', id: 'ws_1' },
  { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{}', providerExecuted: true },
  { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: searchResult },
  { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://stately.ai/docs', title: 'XState docs' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'XState v5 is out.' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

const tools = (): ToolSet => ({ web_search: openai.tools.webSearch({}) });

/** Plain JSON: what an app or a UI sees (undefined fields gone, errors as their fields). */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const SHOWN = new Set(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result', 'tool-error', 'source', 'text-delta']);

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
    expect(kinds).not.toContain('tool-input-available');
    expect(events.find((event) => event.type === 'tool-input-start')).toMatchObject({ toolCallId: 'ws_1', toolName: 'web_search', providerExecuted: true });
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
    expect((loopchart.parts as Array<{ type: string }>).map((part) => part.type)).toEqual(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result', 'source', 'text-delta']);
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
    const mine = scripted([searchTurn, textTurn('t2', 'Yes.')]);
    const agent = createAgent({ model: mine.model, tools: tools() });
    await agent.run('Is XState v5 out?');
    const second = await agent.run('Sure?');
    expect(second.outcome).toBe('completed');
    expect(second.text).toBe('Yes.');

    const theirs = scripted([searchTurn, textTurn('t2', 'Yes.')]);
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

// ---------------------------------------------------------------------------
// Through a real provider: Anthropic's web search, streamed as its API does, and the next turn's
// request as the Anthropic provider writes it from loopchart's history.
// ---------------------------------------------------------------------------

/** An Anthropic Messages stream (`data:` lines) of the given events. */
function anthropicSse(events: object[]): Response {
  const body = events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const messageStart = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } };
const messageEnd = [{ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }, { type: 'message_stop' }];
const textBlock = (index: number, text: string) => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
  { type: 'content_block_stop', index },
];

const anthropicSearchTurn = () => [
  messageStart,
  { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"xstate v5"}' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://stately.ai/docs', title: 'XState docs', encrypted_content: 'enc', page_age: null }] },
  },
  { type: 'content_block_stop', index: 1 },
  ...textBlock(2, 'XState v5 is out.'),
  ...messageEnd,
];

describe('provider-executed tools through the Anthropic provider', () => {
  it('a second run sends the server tool use and its web search result back as Anthropic content blocks', async () => {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const bodies: Array<{ messages: Array<{ role: string; content: Array<{ type: string; id?: string; tool_use_id?: string }> }> }> = [];
    const turns = [anthropicSearchTurn(), [messageStart, ...textBlock(0, 'Yes.'), ...messageEnd]];
    const anthropic = createAnthropic({
      apiKey: 'test-key',
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(init?.body as string));
        return anthropicSse(turns[bodies.length - 1]!);
      },
    });
    const agent = createAgent({ model: anthropic('claude-sonnet-4-5'), tools: { web_search: anthropic.tools.webSearch_20250305() } });
    const warnings: unknown[] = [];
    agent.events$.subscribe((event) => {
      if (event.type === 'model-call-start') warnings.push(...event.warnings);
    });

    const first = await agent.run('Is XState v5 out?');
    expect(first.outcome).toBe('completed');
    expect(first.steps[0]!.sources).toEqual([expect.objectContaining({ sourceType: 'url', url: 'https://stately.ai/docs' })]);
    const second = await agent.run('Sure?');

    expect(second.outcome).toBe('completed');
    expect(second.text).toBe('Yes.');
    expect(warnings).toEqual([]);
    const assistant = bodies[1]!.messages.find((message) => message.role === 'assistant')!;
    expect(assistant.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(assistant.content[0]).toMatchObject({ id: 'srvtoolu_1', name: 'web_search', input: { query: 'xstate v5' } });
    expect(assistant.content[1]).toMatchObject({ tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://stately.ai/docs', encrypted_content: 'enc' }] });
  });
});

describe("a provider's approval request for a call it runs itself", () => {
  it('is refused with a stream warning that names the call and the fix, not dropped', async () => {
    const { model } = scripted([
      () => [
        { type: 'stream-start', warnings: [] },
        { type: 'tool-call', toolCallId: 'mcp_1', toolName: 'mcp.delete_repo', input: '{}', providerExecuted: true, dynamic: true },
        { type: 'tool-approval-request', approvalId: 'apr_1', toolCallId: 'mcp_1' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ],
    ]);
    const agent = createAgent({ model });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));
    const result = await agent.run('Delete the repo');
    const warnings = events.filter((event) => event.type === 'stream-warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ error: { message: expect.stringContaining('approval of its own call of mcp.delete_repo (mcp_1, approval apr_1)') } });
    expect(result.trace?.steps[0]?.streamWarnings?.[0]?.message).toContain("requireApproval: 'never'");
  });
});
