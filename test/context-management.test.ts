import { APICallError } from '@ai-sdk/provider';
import { tool, type ModelMessage } from 'ai';
import * as internal from 'ai/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { convertPromptIncrementally } from '../src/model-call/incremental-prompt.js';
import { findCutPoint } from '../src/context/cut-point.js';
import { applyPruning, PRUNED_TOOL_OUTPUT, selectPrunableToolResults } from '../src/context/prune-tool-outputs.js';
import { SUMMARY_HEADER, summaryPrompt, summaryText, transcript } from '../src/context/summary.js';
import { contextTokens, estimateMessageTokens, estimateTextTokens, tokensForCharacters } from '../src/context/token-estimate.js';
import { scriptedModel } from 'loopchart/test';
import { createAgent, type AgentEvent } from '../src/index.js';
import { expectValidHistory, toolResultCounts } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents, recordStates } from './support/record.js';

const bigTool = tool({
  description: 'returns n characters',
  inputSchema: z.object({ n: z.number() }),
  execute: async ({ n }) => 'x'.repeat(n),
});

function ofType<T extends AgentEvent['type']>(events: AgentEvent[], type: T): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

const alternating = (count: number, size: number, letter: string): ModelMessage[] =>
  Array.from({ length: count }, (_, i): ModelMessage => (i % 2 ? { role: 'assistant', content: letter.repeat(size) } : { role: 'user', content: letter.repeat(size) }));

const summariser = (text = '## Goal\nTest.\n## Progress\nSome.') => mockModel([{ text: [text] }, { text: [text] }, { text: [text] }]);

describe('token accounting', () => {
  it('estimates characters / 4', () => {
    expect(estimateTextTokens('abcdefgh')).toBe(2);
    expect(estimateMessageTokens({ role: 'user', content: 'x'.repeat(400) })).toBe(104);
  });

  it('the scripted model’s default usage and the context estimate count tokens by the same rule', async () => {
    expect(tokensForCharacters(9)).toBe(3);
    const model = scriptedModel([{ text: ['abcdefghi'] }]);
    const result = await createAgent({ model }).run('hi');
    expect(result.usage.outputTokens).toBe(tokensForCharacters('abcdefghi'.length));
  });

  it('uses the last provider count plus an estimate of what came after', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'x'.repeat(4000) },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'y'.repeat(400) },
    ];
    expect(contextTokens({ messages, mark: { tokens: 50, messageCount: 2 } })).toBe(50 + 104);
    expect(contextTokens({ messages, instructions: 'z'.repeat(40) })).toBe(10 + 1004 + estimateMessageTokens(messages[1]!) + 104);
  });

  it('agent.contextTokens follows the provider usage of the last call', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['hi'], usage: { input: 1200, output: 34 } }]) });
    await agent.run('hello');
    expect(agent.contextTokens).toBe(1234);
  });
});

describe('compaction triggers', () => {
  const window = { contextWindow: 10_000, reserveTokens: 1_000, keepRecentTokens: 500, protectToolOutputTokens: 100 };

  it('fires after a tool step that crosses the threshold, before the next LLM call', async () => {
    const model = mockModel([
      { toolCalls: [{ id: 'b', name: 'big', input: { n: 8_000 } }], usage: { input: 7_500, output: 100 } },
      { text: ['done'] },
    ]);
    const summary = summariser();
    const agent = createAgent({ model, tools: { big: bigTool }, compaction: { ...window, model: summary } });
    const events = recordEvents(agent);
    const states = recordStates(agent);
    const result = await agent.run('go');

    expect(result.outcome).toBe('completed');
    const types = events.map((event) => event.type);
    expect(types.indexOf('compaction-start')).toBeGreaterThan(types.indexOf('tool-result'));
    expect(types.indexOf('compaction-end')).toBeLessThan(types.lastIndexOf('start-step'));
    const [start] = ofType(events, 'compaction-start');
    const [end] = ofType(events, 'compaction-end');
    expect(start).toMatchObject({ reason: 'threshold', tokensBefore: 7_600 + estimateMessageTokens(result.messages[2]!) });
    expect(end!.tokensAfter).toBeLessThan(end!.tokensBefore);
    expect(states).toContain('running.compacting');
    await expectValidHistory(result.messages);
  });

  it('never fires while under the threshold', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'big', input: { n: 100 } }], usage: { input: 500, output: 10 } }, { text: ['done'] }]);
    const summary = summariser();
    const agent = createAgent({ model, tools: { big: bigTool }, compaction: { ...window, model: summary } });
    const events = recordEvents(agent);
    await agent.run('go');
    expect(ofType(events, 'compaction-start')).toEqual([]);
    expect(summary.doStreamCalls).toHaveLength(0);
  });

  it('fires at run start when the history is already over budget', async () => {
    const history = alternating(10, 4_000, 'h');
    const model = mockModel([{ text: ['fresh'] }]);
    const summary = summariser();
    const agent = createAgent({ model, messages: history, compaction: { ...window, model: summary } });
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(summary.doStreamCalls).toHaveLength(1);
    expect(summaryText(model.doStreamCalls[0]!.prompt[0] as never)).toBeUndefined();
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt[0])).toContain(SUMMARY_HEADER.slice(0, 30));
    expect(result.messages.length).toBeLessThan(history.length + 2);
  });

  it('pruning alone suffices: old tool outputs are hidden from the model, the history keeps them, no summary is made', async () => {
    const model = mockModel([
      { toolCalls: [{ id: 'old', name: 'big', input: { n: 4_000 } }], usage: { input: 100, output: 10 } },
      { toolCalls: [{ id: 'new', name: 'big', input: { n: 800 } }], usage: { input: 9_500, output: 10 } },
      { text: ['done'] },
    ]);
    const summary = summariser();
    const agent = createAgent({ model, tools: { big: bigTool }, compaction: { ...window, protectToolOutputTokens: 300, model: summary } });
    const events = recordEvents(agent);
    const result = await agent.run('go');

    expect(summary.doStreamCalls).toHaveLength(0);
    expect(ofType(events, 'compaction-end')[0]).toMatchObject({ kind: 'pruned', reason: 'threshold' });
    const lastPrompt = JSON.stringify(model.doStreamCalls[2]!.prompt);
    expect(lastPrompt).toContain(PRUNED_TOOL_OUTPUT);
    expect(lastPrompt).toContain('x'.repeat(800));
    expect(JSON.stringify(result.messages)).toContain('x'.repeat(4_000));
    await expectValidHistory(result.messages);
  });

  it('is forced when a step finishes with length, answering the cut-off calls, and the run goes on', async () => {
    const model = mockModel([
      { text: ['a long answer that got cut'], toolCalls: [{ id: 'cut', name: 'big', input: { n: 1 } }], finishReason: 'length' },
      { text: ['continued'] },
    ]);
    const summary = summariser();
    const agent = createAgent({
      model,
      tools: { big: bigTool },
      messages: [{ role: 'user', content: 'earlier '.repeat(600) }, { role: 'assistant', content: 'noted' }],
      compaction: { ...window, model: summary },
    });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(ofType(events, 'compaction-start')[0]!.reason).toBe('length');
    expect(summary.doStreamCalls).toHaveLength(1);
    expect(result.text).toBe('continued');
    await expectValidHistory(result.messages);
  });

  it('is forced when the provider says the context is too long, and the same step is called again', async () => {
    const overflow = new APICallError({
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
      url: 'u',
      requestBodyValues: {},
      statusCode: 400,
    });
    const model = mockModel([{ reject: overflow }, { text: ['fits now'] }]);
    const summary = summariser();
    const agent = createAgent({
      model,
      messages: [{ role: 'user', content: 'old '.repeat(1_000) }, { role: 'assistant', content: 'ok' }],
      compaction: { ...window, model: summary },
    });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(result.stepCount).toBe(1);
    expect(ofType(events, 'compaction-start')[0]!.reason).toBe('overflow');
  });

  it('beyond maxCompactions the run ends context-limit', async () => {
    const model = mockModel([
      { toolCalls: [{ name: 'big', input: { n: 8_000 } }], usage: { input: 7_500, output: 10 } },
      { toolCalls: [{ name: 'big', input: { n: 9_000 } }], usage: { input: 7_500, output: 10 } },
      { text: ['never'] },
    ]);
    const summary = summariser();
    const agent = createAgent({ model, tools: { big: bigTool }, compaction: { ...window, keepRecentTokens: 10_000, maxCompactions: 0, model: summary } });
    const result = await agent.run('go');
    expect(result.outcome).toBe('context-limit');
    expect(result.error?.message).toMatch(/maxCompactions/);
    expect(model.doStreamCalls).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('a summariser that throws ends context-limit and makes no further LLM call', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'big', input: { n: 8_000 } }], usage: { input: 7_500, output: 10 } }, { text: ['never'] }]);
    const broken = mockModel([{ reject: new Error('summariser down') }]);
    const agent = createAgent({ model, tools: { big: bigTool }, compaction: { ...window, protectToolOutputTokens: 50_000, model: broken } });
    const result = await agent.run('go');
    expect(result.outcome).toBe('context-limit');
    expect(result.error).toMatchObject({ kind: 'context-overflow', message: expect.stringMatching(/^Compaction failed: .*summariser down/) });
    expect(model.doStreamCalls).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('a compaction that still does not fit fails closed', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'big', input: { n: 8_000 } }], usage: { input: 7_500, output: 10 } }, { text: ['never'] }]);
    const agent = createAgent({
      model,
      tools: { big: bigTool },
      compaction: { ...window, keepRecentTokens: 2_100, protectToolOutputTokens: 50_000, model: summariser('s'.repeat(40_000)) },
    });
    const result = await agent.run('go');
    expect(result.outcome).toBe('context-limit');
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('updates a previous summary instead of summarising from scratch', async () => {
    const history: ModelMessage[] = [
      { role: 'user', content: `${SUMMARY_HEADER}\n\n## Goal\nOld goal.` },
      ...alternating(8, 5_000, 'm'),
    ];
    const summary = summariser('## Goal\nUpdated goal.');
    const agent = createAgent({ model: mockModel([{ text: ['ok'] }]), messages: history, compaction: { ...window, model: summary } });
    const result = await agent.run('go');
    const sent = JSON.stringify(summary.doStreamCalls[0]!.prompt);
    expect(sent).toContain('Old goal.');
    expect(sent).toContain('Update it with what happened since');
    expect(result.messages.filter((message) => summaryText(message) !== undefined)).toHaveLength(1);
    expect(summaryText(result.messages[0])).toBe('## Goal\nUpdated goal.');
  });
});

describe('transformContext', () => {
  it('changes what the model sees, not the stored history', async () => {
    const model = mockModel([{ text: ['ok'] }]);
    const agent = createAgent({
      model,
      transformContext: (messages) => messages.map((message) => (message.role === 'user' ? { ...message, content: 'REDACTED' } : message)),
    });
    const result = await agent.run('my password is hunter2');
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).not.toContain('hunter2');
    expect(result.messages[0]).toEqual({ role: 'user', content: 'my password is hunter2' });
  });

  it('a transform that throws fails the call closed: nothing is sent', async () => {
    const model = mockModel([{ text: ['never'] }]);
    const result = await createAgent({
      model,
      transformContext: () => {
        throw new Error('redactor offline');
      },
    }).run('secret');
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toMatch(/transformContext failed.*redactor offline/);
    expect(model.doStreamCalls).toHaveLength(0);
  });
});

describe('pure context helpers', () => {
  const toolTurn = (id: string, size: number): ModelMessage[] => [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 't', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 't', output: { type: 'text', value: 'o'.repeat(size) } }] },
  ];

  it('prunes tool outputs older than the newest protected tokens', () => {
    const messages = [...toolTurn('a', 4_000), ...toolTurn('b', 4_000), ...toolTurn('c', 400)];
    expect(selectPrunableToolResults(messages, 1_100)).toEqual(['a']);
    const view = applyPruning(messages, ['a']);
    expect(JSON.stringify(view)).toContain(PRUNED_TOOL_OUTPUT);
    expect(messages[1]).toEqual(toolTurn('a', 4_000)[1]);
  });

  it('a pruned history gives the same view objects from call to call, so the prompt is converted only where it grew', async () => {
    const messages = [...toolTurn('a', 4_000), ...toolTurn('b', 400)];
    const pruned = ['a'];
    const first = applyPruning(messages, pruned);
    const longer = [...messages, ...toolTurn('c', 400)];
    const second = applyPruning(longer, pruned);
    expect(second.slice(0, first.length).every((message, index) => message === first[index])).toBe(true);
    expect(second[1]).not.toBe(longer[1]);
    expect(second[3]).toBe(longer[3]);
    // A new pruned list (the next compaction) makes new views.
    expect(applyPruning(messages, ['a', 'b'])[1]).not.toBe(first[1]);

    const converted: number[] = [];
    const counting: typeof internal.convertToLanguageModelPrompt = (args) => (converted.push(args.prompt.messages.length), internal.convertToLanguageModelPrompt(args));
    const options = { supportedUrls: {}, download: undefined, abortSignal: undefined, provider: 'mock' };
    const history = [{ role: 'user' as const, content: 'go' }, ...messages];
    await convertPromptIncrementally(undefined, applyPruning(history, pruned), options, { ...internal, convertToLanguageModelPrompt: counting });
    await convertPromptIncrementally(undefined, applyPruning([...history, ...toolTurn('c', 400)], pruned), options, { ...internal, convertToLanguageModelPrompt: counting });
    expect(converted).toEqual([5, 2]);
  });

  it('estimates each message once: a history estimated again (no provider count yet) does not walk its messages again', () => {
    let reads = 0;
    const part = { type: 'tool-call' as const, toolCallId: 'a', toolName: 't', get input() { reads++; return { path: 'x'.repeat(40) }; } };
    const message: ModelMessage = { role: 'assistant', content: [part] };
    const first = estimateMessageTokens(message);
    expect([estimateMessageTokens(message), contextTokens({ messages: [message, message] })]).toEqual([first, 2 * first]);
    expect(reads).toBe(1);
  });

  it('the transcript cuts tool results to 2000 characters and the prompt updates an earlier summary', () => {
    const text = transcript(toolTurn('a', 5_000));
    expect(text).toContain('[…3000 more characters]');
    expect(summaryPrompt([], 'old')).toContain('<summary>\nold\n</summary>');
  });

  const message = fc.oneof(
    fc.constant<'user' | 'assistant-text' | 'tool-turn'>('user'),
    fc.constant<'user' | 'assistant-text' | 'tool-turn'>('assistant-text'),
    fc.constant<'user' | 'assistant-text' | 'tool-turn'>('tool-turn'),
  );

  it('the cut point never splits a tool call from its result (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(message, fc.integer({ min: 1, max: 3_000 })), { maxLength: 40 }), fc.integer({ min: 0, max: 20_000 }), (shape, keep) => {
        const messages: ModelMessage[] = [];
        shape.forEach(([kind, size], index) => {
          if (kind === 'user') messages.push({ role: 'user', content: 'u'.repeat(size) });
          else if (kind === 'assistant-text') messages.push({ role: 'assistant', content: 'a'.repeat(size) });
          else messages.push(...toolTurn(`call-${index}`, size));
        });
        const cut = findCutPoint(messages, keep);
        expect(cut).toBeGreaterThanOrEqual(0);
        expect(cut).toBeLessThanOrEqual(messages.length);
        for (const part of [messages.slice(0, cut), messages.slice(cut)]) {
          for (const [, count] of toolResultCounts(part)) expect(count).toBe(1);
          const results = part.flatMap((m) => (m.role === 'tool' ? m.content.map((c) => (c as { toolCallId: string }).toolCallId) : []));
          const calls = part.flatMap((m) =>
            m.role === 'assistant' && typeof m.content !== 'string' ? m.content.map((c) => (c as { toolCallId: string }).toolCallId) : [],
          );
          expect(results.sort()).toEqual(calls.sort());
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('context accounting across prunings, the summariser as an LLM call, JSON results, step numbers', () => {
  const window = { contextWindow: 10_000, reserveTokens: 1_000, keepRecentTokens: 500, protectToolOutputTokens: 100 };
  const noUsage = { input: 0, output: 0 };

  it('repeated prunings never count the same savings twice: without provider usage the estimate stays true and the run completes', async () => {
    const toolStep = (id: string, index: number) => ({ toolCalls: [{ id, name: 'big', input: { n: 12_000 + index } }], usage: noUsage });
    const model = mockModel([...'abcdefghij'.split('').map(toolStep), { text: ['done'], usage: noUsage }]);
    const agent = createAgent({ model, tools: { big: bigTool }, maxSteps: 12, compaction: { ...window, maxCompactions: 4, model: summariser() } });
    const events = recordEvents(agent);

    const result = await agent.run('go');

    expect(result.outcome).toBe('completed');
    const ends = ofType(events, 'compaction-end');
    // 10 outputs of ~3,000 tokens against a 9,000-token budget: a pruning every few steps, not at every step.
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.length).toBeLessThanOrEqual(4);
    for (const end of ends) {
      expect(end.tokensAfter).toBeGreaterThan(0);
      expect(end.tokensAfter).toBeLessThanOrEqual(9_000);
    }
    // Every call went out within the budget, as the estimate of what was sent says.
    for (const call of model.doStreamCalls) expect(estimateTextTokens(JSON.stringify(call.prompt))).toBeLessThan(10_000);
    await expectValidHistory(result.messages);
  });

  it('a stalled summariser is an LLM call like any other: chunkMs ends it and the run ends context-limit, long before totalMs', async () => {
    const stalled = mockModel([{ text: ['## Goal'], holdAfter: 3 }]);
    const history = alternating(30, 2_000, 'h');
    const model = mockModel([{ text: ['never'] }]);
    const agent = createAgent({ model, messages: history, timeout: { chunkMs: 100, totalMs: 60_000 }, compaction: { ...window, model: stalled } });

    const result = await agent.run('go');

    expect(result.outcome).toBe('context-limit');
    expect(result.error?.message).toMatch(/timed out/);
    expect(model.doStreamCalls).toHaveLength(0);
    expect(result.durationMs).toBeLessThan(30_000);
  });

  it('transformContext sees what the summariser is sent, so a redacting transform keeps secrets from it', async () => {
    const summary = summariser();
    const history = alternating(30, 2_000, 'h');
    history[2] = { role: 'user', content: `my password is hunter2-SECRET ${'p'.repeat(2_000)}` };
    const agent = createAgent({
      model: mockModel([{ text: ['ok'] }]),
      messages: history,
      transformContext: (messages) => JSON.parse(JSON.stringify(messages).replaceAll('hunter2-SECRET', '[redacted]')) as ModelMessage[],
      compaction: { ...window, model: summary },
    });

    await agent.run('go');

    expect(summary.doStreamCalls).toHaveLength(1);
    expect(JSON.stringify(summary.doStreamCalls[0]!.prompt)).not.toContain('hunter2-SECRET');
  });

  it('a one-line JSON tool result is measured as it is sent, not pretty-printed, and reaches the model whole', async () => {
    const rows = Array.from({ length: 400 }, (_, index) => ({ id: index, name: `row-${index}` }));
    const listing = tool({ description: 'rows', inputSchema: z.object({}), execute: async () => rows });
    expect(JSON.stringify(rows).length).toBeGreaterThan(10_000);
    const model = mockModel([{ toolCalls: [{ id: 'j', name: 'listing', input: {} }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { listing }, truncation: { maxLines: 100, maxBytes: 50_000 } });

    await agent.run('go');

    const sent = JSON.stringify(model.doStreamCalls[1]!.prompt);
    expect(sent).toContain('row-200');
    expect(sent).not.toContain('cut here');
  });

  it('compaction events count steps from 1: a compaction at the start of a run is for step 1', async () => {
    const history = alternating(30, 2_000, 'h');
    const agent = createAgent({ model: mockModel([{ text: ['ok'] }]), messages: history, compaction: { ...window, model: summariser() } });
    const events = recordEvents(agent);

    await agent.run('go');

    expect(ofType(events, 'compaction-start').map((event) => event.step)).toEqual([1]);
    expect(ofType(events, 'compaction-end').map((event) => event.step)).toEqual([1]);
  });
});
