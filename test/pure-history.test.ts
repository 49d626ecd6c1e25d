import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { StepAccumulator } from '../src/model-call/step-accumulator.js';
import { classifyError } from '../src/errors/classify-error.js';
import { APICallError } from '@ai-sdk/provider';
import { MessageHistory, type MessageList } from '../src/core/message-history.js';
import { errorAnswer, extendsHistory, knownBeginning, toolMessage, unansweredToolCalls, type HistoryEntry } from '../src/core/history.js';
import { toolCallIdsIn } from '../src/core/tool-call-ids.js';

describe('unansweredToolCalls', () => {
  const history: ModelMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'a', toolName: 'read', input: {} },
        { type: 'tool-call', toolCallId: 'b', toolName: 'ls', input: {} },
      ],
    },
    toolMessage([errorAnswer({ toolCallId: 'a', toolName: 'read' }, 'no')]),
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'read', input: {} }] },
  ];

  it('lists calls without results in call order', () => {
    expect(unansweredToolCalls(history).map((call) => call.toolCallId)).toEqual(['b', 'c']);
  });

  it('only looks from the given index on', () => {
    expect(unansweredToolCalls(history, 3).map((call) => call.toolCallId)).toEqual(['c']);
  });
});

describe('extendsHistory', () => {
  const user = (text: string): ModelMessage => ({ role: 'user', content: text });

  it('holds for a history and what was appended to it, however many appends later', () => {
    const root = [user('a')];
    const second = MessageHistory.from(root).append(user('b'));
    const third = MessageHistory.from(second).append(user('c'), user('d'));
    expect([extendsHistory(third, root), extendsHistory(third, second), extendsHistory(second, second)]).toEqual([true, true, true]);
    expect([extendsHistory(root, third), extendsHistory(second, third)]).toEqual([false, false]);
  });

  it('tells a branch from a continuation: two histories appended to the same one do not extend each other', () => {
    const root = [user('a')];
    const left = MessageHistory.from(root).append(user('left'));
    const right = MessageHistory.from(root).append(user('right'));
    const leftMore = MessageHistory.from(left).append(user('more'));
    expect([extendsHistory(right, left), extendsHistory(leftMore, right), extendsHistory(right, root), extendsHistory(leftMore, left)]).toEqual([false, false, true, true]);
  });

  it('compares message by message arrays, which are not histories', () => {
    const shared = user('a');
    expect(extendsHistory([shared, user('b')], [shared])).toBe(true);
    expect(extendsHistory([user('a'), user('b')], [shared])).toBe(false);
    expect(extendsHistory([shared], [shared, user('b')])).toBe(false);
  });
});

describe('StepAccumulator', () => {
  it('builds the assistant message from reasoning, text blocks and tool calls in arrival order', () => {
    const step = new StepAccumulator();
    step.add({ type: 'reasoning-start', id: 'r', providerMetadata: { p: { sig: '1' } } });
    step.add({ type: 'reasoning-delta', id: 'r', text: 'think' });
    step.add({ type: 'reasoning-end', id: 'r' });
    step.add({ type: 'text-start', id: 't' });
    step.add({ type: 'text-delta', id: 't', text: 'Hel' });
    step.add({ type: 'text-delta', id: 't', text: 'lo' });
    step.add({ type: 'text-end', id: 't' });
    step.add({ type: 'tool-call', toolCall: { toolCallId: 'x', toolName: 'ls', input: { path: '.' } } });
    expect(step.text()).toBe('Hello');
    expect(step.toMessage()).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think', providerOptions: { p: { sig: '1' } } },
        { type: 'text', text: 'Hello' },
        { type: 'tool-call', toolCallId: 'x', toolName: 'ls', input: { path: '.' } },
      ],
    });
  });

  it('puts each delta in the block of its kind and id, when blocks interleave, share an id across kinds, or an id starts again after its end', () => {
    const step = new StepAccumulator();
    step.add({ type: 'text-start', id: 'a' });
    step.add({ type: 'reasoning-start', id: 'a' });
    step.add({ type: 'text-start', id: 'b' });
    step.add({ type: 'text-delta', id: 'a', text: 'A1' });
    step.add({ type: 'reasoning-delta', id: 'a', text: 'R1' });
    step.add({ type: 'text-delta', id: 'b', text: 'B1' });
    step.add({ type: 'text-delta', id: 'a', text: 'A2' });
    step.add({ type: 'text-delta', id: 'a', text: 'A3' });
    step.add({ type: 'text-end', id: 'a' });
    step.add({ type: 'text-start', id: 'a' });
    step.add({ type: 'text-delta', id: 'a', text: 'C1' });
    step.add({ type: 'text-start', id: 'a' });
    step.add({ type: 'text-delta', id: 'a', text: 'D1' });
    expect(step.toMessage()?.content).toEqual([
      { type: 'text', text: 'A1A2A3' },
      { type: 'reasoning', text: 'R1' },
      { type: 'text', text: 'B1' },
      { type: 'text', text: 'C1' },
      { type: 'text', text: 'D1' },
    ]);
  });

  it('gives a call whose id the history already has the history length as a suffix, and a repeat within the step a counter', () => {
    const step = new StepAccumulator(new Set(['call_0', 'call_1']), 14);
    for (const id of ['call_0', 'call_0', 'call_2', 'call_2']) step.add({ type: 'tool-call', toolCall: { toolCallId: id, toolName: 'ls', input: {} } });
    expect(step.toolCalls.map((call) => call.toolCallId)).toEqual(['call_0-14', 'call_0-14-2', 'call_2', 'call_2-2']);
  });

  it('gives a call that came without an id (some servers send "") one', () => {
    const step = new StepAccumulator(new Set(), 3);
    for (const id of ['', '']) step.add({ type: 'tool-call', toolCall: { toolCallId: id, toolName: 'ls', input: {} } });
    expect(step.toolCalls.map((call) => call.toolCallId)).toEqual(['call_3', 'call_3-2']);
  });

  it('gives no message for an empty step and replaces unparseable invalid input with {}', () => {
    expect(new StepAccumulator().toMessage()).toBeUndefined();
    const step = new StepAccumulator();
    step.add({ type: 'tool-call', toolCall: { toolCallId: 'x', toolName: 'ls', input: '{bad', invalid: true, error: 'bad json' } });
    expect(step.toMessage()?.content).toEqual([{ type: 'tool-call', toolCallId: 'x', toolName: 'ls', input: {} }]);
  });
});

describe('classifyError', () => {
  const apiError = (statusCode: number, message = 'x') =>
    new APICallError({ message, url: 'u', requestBodyValues: {}, statusCode });

  it.each([
    [429, 'rate-limit', true],
    [401, 'auth', false],
    [403, 'auth', false],
    [500, 'server', true],
    [502, 'server', true],
    [503, 'overloaded', true],
    [529, 'overloaded', true],
    [408, 'server', true],
    [404, 'invalid-request', false],
  ] as const)('HTTP %i is %s (retryable by the provider: %s)', (status, kind, retryable) => {
    expect(classifyError(apiError(status))).toEqual({ kind, message: 'x', status, ...(retryable ? {} : { retryable: false }) });
  });

  it('a 429 that says the quota is used up is a rate limit no retry can fix', () => {
    const body = JSON.stringify({ error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } });
    const error = new APICallError({ message: 'You exceeded your current quota', url: 'u', requestBodyValues: {}, statusCode: 429, responseBody: body, isRetryable: true });
    expect(classifyError(error)).toEqual({ kind: 'rate-limit', message: 'You exceeded your current quota', status: 429, retryable: false });
    const plain = new APICallError({ message: 'Rate limit reached for requests', url: 'u', requestBodyValues: {}, statusCode: 429, responseBody: '{"error":{"code":"rate_limit_exceeded"}}', isRetryable: true });
    expect(classifyError(plain).retryable).toBeUndefined();
  });

  it('recognises context overflow messages', () => {
    expect(classifyError(apiError(400, "This model's maximum context length is 8192 tokens")).kind).toBe('context-overflow');
  });

  it('recognises network failures through the cause chain', () => {
    const error = new TypeError('fetch failed', { cause: Object.assign(new Error('read'), { code: 'ECONNRESET' }) });
    expect(classifyError(error)).toEqual({ kind: 'network', message: 'fetch failed' });
  });

  it('recognises aborts and never throws on odd values', () => {
    expect(classifyError(new DOMException('x', 'AbortError')).kind).toBe('aborted');
    expect(classifyError(undefined).kind).toBe('unknown');
    expect(classifyError({ weird: true }).message).toBeTypeOf('string');
  });
});

describe('toolCallIdsIn', () => {
  /** An assistant message with one tool call whose content getter counts its reads. */
  const counted = (id: string, reads: Map<string, number>): ModelMessage => {
    const content = [{ type: 'tool-call' as const, toolCallId: id, toolName: 'ls', input: {} }];
    return Object.defineProperty({ role: 'assistant' }, 'content', {
      enumerable: true,
      get: () => (reads.set(id, (reads.get(id) ?? 0) + 1), content),
    }) as ModelMessage;
  };

  it('has every tool call id of the history, and reads only the messages appended since the last call', () => {
    const reads = new Map<string, number>();
    let history: MessageList = [{ role: 'user', content: 'go' }];
    for (let step = 0; step < 5; step++) {
      history = MessageHistory.from(history).append(counted(`c${step}`, reads), { role: 'tool', content: [] });
      expect([...toolCallIdsIn(history)]).toEqual(Array.from({ length: step + 1 }, (_, index) => `c${index}`));
    }
    // Read in the step that appended it, never again: the first message as often as the last.
    expect([...reads.values()]).toEqual(Array.from({ length: 5 }, () => reads.get('c4')));
    const before = new Map(reads);
    expect([...toolCallIdsIn(history.slice())]).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(reads).toEqual(before);
    // Other message objects (a history read back from a store) are read whole.
    expect([...toolCallIdsIn(JSON.parse(JSON.stringify(history)) as ModelMessage[])]).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });
});

describe('knownBeginning', () => {
  const user = (content: string): ModelMessage => ({ role: 'user', content });

  it('finds the entry of the nearest beginning of a history within the look-back, and only if the history begins with it', () => {
    const cache = new WeakMap<ModelMessage, HistoryEntry>();
    const first = MessageHistory.from([user('a')]).append(user('b'));
    cache.set(first.at(-1)!, { source: first, count: first.length });
    const later = MessageHistory.from(first).append(user('c'), user('d'));
    expect(knownBeginning(later, cache)).toEqual({ source: first, count: 2 });
    // The same last message in another history: it does not begin with the entry's.
    expect(knownBeginning([user('x'), first.at(1)!, user('c')], cache)).toBeUndefined();
    // Beyond the look-back, the entry is not looked for.
    expect(knownBeginning(later, cache, 1)).toBeUndefined();
    // An entry that does not cover up to the message it is kept under is not taken.
    cache.set(first.at(1)!, { source: first, count: 1 });
    expect(knownBeginning(later, cache)).toBeUndefined();
  });
});
