import { APICallError } from '@ai-sdk/provider';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { z } from 'zod';
import { createAgent, type AgentEvent } from '../src/index.js';
import { scriptedModel } from 'loopchart/test';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents, recordStates } from './support/record.js';
import { addTool, sleepTool } from './support/tools.js';

const fastRetry = { baseDelayMs: 1, maxDelayMs: 50 };

function httpError(statusCode: number, message: string, responseHeaders: Record<string, string> = {}) {
  return new APICallError({
    message,
    url: 'https://provider.invalid/v1/chat',
    requestBodyValues: {},
    statusCode,
    responseHeaders,
    isRetryable: statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500,
  });
}

const hangingTool = tool({
  description: 'never settles and ignores its signal',
  inputSchema: z.object({}),
  execute: () => new Promise<string>(() => {}),
});

function ofType<T extends AgentEvent['type']>(events: AgentEvent[], type: T): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

describe('retries', () => {
  it('429 with retry-after-ms waits as asked, then succeeds', async () => {
    const model = mockModel([{ reject: httpError(429, 'Too many requests', { 'retry-after-ms': '40' }) }, { text: ['ok'] }]);
    const agent = createAgent({ model, retry: { baseDelayMs: 5_000, maxDelayMs: 10_000 } });
    const events = recordEvents(agent);
    const started = performance.now();
    const result = await agent.run('go');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('ok');
    expect(model.doStreamCalls).toHaveLength(2);
    expect(result.stepCount).toBe(1);
    const [retry] = ofType(events, 'retry');
    expect(retry).toMatchObject({ attempt: 2, delayMs: 40, error: { kind: 'rate-limit', status: 429, retryAfterMs: 40 } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
    await expectValidHistory(result.messages);
  });

  it('500 three times fails with kind server after exactly three calls', async () => {
    const model = mockModel([0, 1, 2].map(() => ({ reject: httpError(500, 'Internal error') })));
    const agent = createAgent({ model, retry: fastRetry });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'server', status: 500 });
    expect(model.doStreamCalls).toHaveLength(3);
    expect(ofType(events, 'retry').map((event) => event.attempt)).toEqual([2, 3]);
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
  });

  it.each([
    [400, 'invalid-request'],
    [401, 'auth'],
    [403, 'auth'],
  ] as const)('%i is not retried (kind %s)', async (status, kind) => {
    const model = mockModel([{ reject: httpError(status, 'nope') }, { text: ['never'] }]);
    const result = await createAgent({ model, retry: fastRetry }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error?.kind).toBe(kind);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('an error part after some deltas is retried without duplicating text, and deltas name their attempt', async () => {
    const model = mockModel([{ text: ['Hel', 'lo'], errorPart: { message: 'upstream reset' } }, { text: ['Hello', ' world'] }]);
    const agent = createAgent({ model, retry: fastRetry });
    const events = recordEvents(agent);
    const result = await agent.run('go');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('Hello world');
    expect(result.messages.filter((m) => m.role === 'assistant')).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'Hello world' }] }]);
    expect(ofType(events, 'text-delta').map((event) => [event.attempt, event.text])).toEqual([
      [1, 'Hel'],
      [1, 'lo'],
      [2, 'Hello'],
      [2, ' world'],
    ]);
    expect(ofType(events, 'retry')[0]!.error.kind).toBe('stream');
  });

  it('a thrown network error is retried', async () => {
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    const model = mockModel([{ reject: reset }, { text: ['back'] }]);
    const agent = createAgent({ model, retry: fastRetry });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(ofType(events, 'retry')[0]!.error.kind).toBe('network');
  });

  it('running out of scripted turns fails at once, naming the turn, without a retry or a backoff', async () => {
    const model = scriptedModel([{ text: 'Using a tool.', toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }]);
    const agent = createAgent({ model, tools: { add: addTool }, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const events = recordEvents(agent);

    const result = await agent.run('go');

    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toContain('the script has 1 turn; the run asked for a 2nd');
    expect(ofType(events, 'retry')).toHaveLength(0);
    await expectValidHistory(result.messages);
  });

  it('a context overflow is not retried and ends context-limit', async () => {
    const model = mockModel([{ reject: httpError(400, "This model's maximum context length is 128000 tokens") }]);
    const result = await createAgent({ model, retry: fastRetry }).run('go');
    expect(result.outcome).toBe('context-limit');
    expect(result.error?.kind).toBe('context-overflow');
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('the retry deadline lives in the context while waiting, and abort ends the wait at once', async () => {
    const model = mockModel([{ reject: httpError(503, 'busy', { 'retry-after': '30' }) }, { text: ['never'] }]);
    const agent = createAgent({ model, retry: { maxDelayMs: 60_000 } });
    const states = recordStates(agent);
    const run = agent.run('go');
    const snapshot = await waitFor(agent.actor, (state) => state.matches({ running: 'retrying' }));
    expect(snapshot.matches({ running: 'retrying' })).toBe(true);
    expect(snapshot.context.run?.retry).toMatchObject({ attempt: 2, delayMs: 30_000 });
    expect(snapshot.context.run!.retry!.resumeAt).toBeGreaterThan(Date.now() + 29_000);
    const started = performance.now();
    agent.abort();
    const result = await run;
    // The retry waits 30 s; the abort does not.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(result.outcome).toBe('aborted');
    expect(states).toEqual(['idle', 'running.preparing', 'running.llm.calling', 'running.retrying', 'idle']);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('retry-after larger than maxDelayMs is capped', async () => {
    const model = mockModel([{ reject: httpError(429, 'slow down', { 'retry-after': '3600' }) }, { text: ['ok'] }]);
    const agent = createAgent({ model, retry: { maxDelayMs: 20 } });
    const events = recordEvents(agent);
    expect((await agent.run('go')).outcome).toBe('completed');
    expect(ofType(events, 'retry')[0]!.delayMs).toBe(20);
  });
});

describe('timeout (the AI SDK TimeoutConfiguration)', () => {
  it('a number is the whole run, as in the AI SDK: the run ends with outcome timeout', async () => {
    const model = mockModel([{ text: ['partial'], holdAfter: 3 }]);
    const result = await createAgent({ model, timeout: 50 }).run('go');
    expect(result.outcome).toBe('timeout');
    expect(result.text).toBe('partial');
  });

  it('a stream that stalls ends with a retryable timeout (chunkMs), and the retry succeeds', async () => {
    const model = mockModel([{ text: ['start', 'never'], holdAfter: 3 }, { text: ['fine'] }]);
    const agent = createAgent({ model, timeout: { chunkMs: 50 }, retry: fastRetry });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('fine');
    expect(ofType(events, 'retry')[0]!.error).toEqual({ kind: 'timeout', message: 'No chunk for 50 ms (timeout.chunkMs).' });
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
  });

  it('no first chunk within firstChunkMs fails as timeout when no attempt is left', async () => {
    const model = mockModel([{ text: ['x'], holdBeforeFirst: true }]);
    const result = await createAgent({ model, timeout: { firstChunkMs: 30 }, retry: { maxAttempts: 1 } }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'timeout', message: 'No first chunk within 30 ms (timeout.firstChunkMs).' });
  });

  it('a server that sends its headers and then nothing fails at firstChunkMs: stream-start is not a chunk', async () => {
    const model = mockModel([{ text: ['x'], holdAfter: 1 }]);
    const result = await createAgent({ model, timeout: { firstChunkMs: 30 }, retry: { maxAttempts: 1 } }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'timeout', message: 'No first chunk within 30 ms (timeout.firstChunkMs).' });
    expect(result.trace?.steps[0]?.firstChunkMs).toBeUndefined();
  });

  it('a tool that never settles gets a timeout error result and the loop goes on', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'h', name: 'hang', input: {} }] }, { text: ['moving on'] }]);
    const agent = createAgent({ model, tools: { hang: hangingTool }, timeout: { toolMs: 40 } });
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(toolOutputs(result.messages).h).toEqual({ type: 'error-text', value: 'Tool "hang" timed out after 40 ms.' });
    await expectValidHistory(result.messages);
  });

  it('a per-tool time limit overrides toolMs, and the tool’s signal is aborted', async () => {
    const log: string[] = [];
    const model = mockModel([{ toolCalls: [{ id: 's', name: 'sleep', input: { ms: 5_000, label: 'long' } }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { sleep: sleepTool(log) }, timeout: { toolMs: 10_000, tools: { sleepMs: 30 } } });
    const result = await agent.run('go');
    expect(toolOutputs(result.messages).s).toEqual({ type: 'error-text', value: 'Tool "sleep" timed out after 30 ms.' });
    expect(log).toContain('aborted long');
  });

  it('totalMs reached during a tool ends the run with outcome timeout and a valid history', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'h', name: 'hang', input: {} }] }, { text: ['never'] }]);
    const agent = createAgent({ model, tools: { hang: hangingTool }, timeout: { totalMs: 60 } });
    const started = performance.now();
    const result = await agent.run('go');
    // The tool never ends; totalMs (60 ms) ends the run.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.outcome).toBe('timeout');
    expect(toolOutputs(result.messages).h).toEqual({
      type: 'error-text',
      value: "Tool call interrupted: the run's time budget ran out (timeout.totalMs: 60).",
    });
    expect(model.doStreamCalls).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('totalMs reached while streaming keeps the streamed text and ends timeout', async () => {
    const model = mockModel([{ text: ['partial'], holdAfter: 3 }]);
    const result = await createAgent({ model, timeout: { totalMs: 50 } }).run('go');
    expect(result.outcome).toBe('timeout');
    expect(result.text).toBe('partial');
    await expectValidHistory(result.messages);
  });
});

describe('hooks', () => {
  it('a hook’s signal is aborted when the run is aborted: a hook waiting on slow I/O lets the run end at once', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]);
    const signals: AbortSignal[] = [];
    const slowAudit = ({ signal }: { signal: AbortSignal }) =>
      new Promise<undefined>((resolve) => {
        signals.push(signal);
        signal.addEventListener('abort', () => resolve(undefined));
      });
    const agent = createAgent({ model, tools: { add: addTool }, hooks: { beforeToolCall: [slowAudit] } });
    const run = agent.run('go');
    await waitFor(agent.actor, () => signals.length === 1);
    agent.abort();
    const result = await run;
    expect(result.outcome).toBe('aborted');
    expect(signals[0]!.aborted).toBe(true);
    await expectValidHistory(result.messages);
  });

  it('an approval function gets a signal that is aborted when the run is aborted', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]);
    const signals: AbortSignal[] = [];
    const agent = createAgent({
      model,
      tools: { add: addTool },
      approval: (_call, { signal }) => {
        signals.push(signal);
        return new Promise(() => {});
      },
    });
    const run = agent.run('go');
    await waitFor(agent.actor, () => signals.length === 1);
    agent.abort();
    expect((await run).outcome).toBe('aborted');
    expect(signals[0]!.aborted).toBe(true);
  });

  it('a throwing and a hanging hook are reported and isolated; the run completes', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]);
    const agent = createAgent({
      model,
      tools: { add: addTool },
      timeout: { hookMs: 30 },
      hooks: {
        beforeLLMCall: [
          () => {
            throw new Error('plugin bug');
          },
        ],
        afterToolCall: [() => new Promise<never>(() => {})],
      },
    });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(toolOutputs(result.messages).a).toEqual({ type: 'json', value: 3 });
    const hookErrors = ofType(events, 'hook-error').map(({ hook, message, timedOut }) => ({ hook, message, timedOut }));
    expect(hookErrors).toEqual([
      { hook: 'beforeLLMCall', message: 'plugin bug', timedOut: false },
      { hook: 'afterToolCall', message: 'the hook did not settle within 30 ms', timedOut: true },
      { hook: 'beforeLLMCall', message: 'plugin bug', timedOut: false },
    ]);
  });

  it('a failing beforeToolCall blocks its call (fail closed)', async () => {
    let executed = 0;
    const counted = tool({ description: 'counts', inputSchema: z.object({}), execute: async () => ++executed });
    const model = mockModel([{ toolCalls: [{ id: 'c', name: 'counted', input: {} }] }, { text: ['ok'] }]);
    const agent = createAgent({
      model,
      tools: { counted },
      hooks: {
        beforeToolCall: [
          () => {
            throw new Error('policy service down');
          },
        ],
      },
    });
    const result = await agent.run('go');
    expect(executed).toBe(0);
    expect(toolOutputs(result.messages).c).toEqual({
      type: 'error-text',
      value: 'Tool call blocked: a beforeToolCall hook failed (policy service down).',
    });
  });

  it('hooks can replace the model, block a call, rewrite input and replace a result', async () => {
    const first = mockModel([
      {
        toolCalls: [
          { id: 'blocked', name: 'add', input: { a: 1, b: 1 } },
          { id: 'rewritten', name: 'add', input: { a: 2, b: 2 } },
        ],
      },
    ]);
    const stronger = mockModel([{ text: ['done by the stronger model'] }]);
    const seen: string[] = [];
    const agent = createAgent({
      model: first,
      tools: { add: addTool },
      hooks: {
        beforeLLMCall: [({ step }) => (step >= 2 ? { model: stronger } : undefined)],
        afterLLMCall: [({ step, finishReason }) => void seen.push(`${step}:${finishReason}`)],
        beforeToolCall: [({ toolCall }) => (toolCall.toolCallId === 'blocked' ? { block: 'not today' } : { input: { a: 20, b: 22 } })],
        afterToolCall: [({ toolCall, result }) => (toolCall.toolCallId === 'rewritten' ? { output: `answer: ${String(result.output)}` } : undefined)],
      },
    });
    const result = await agent.run('go');
    expect(result.text).toBe('done by the stronger model');
    expect(toolOutputs(result.messages)).toEqual({
      blocked: { type: 'error-text', value: 'Tool call blocked: not today' },
      rewritten: { type: 'text', value: 'answer: 42' },
    });
    expect(seen).toEqual(['1:tool-calls', '2:stop']);
    expect(stronger.doStreamCalls).toHaveLength(1);
  });

  it('a beforeToolCall hook that gives invalid input blocks the call', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'x', name: 'add', input: { a: 1, b: 1 } }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { add: addTool }, hooks: { beforeToolCall: [() => ({ input: { a: 'one' } })] } });
    const result = await agent.run('go');
    expect((toolOutputs(result.messages).x as { value: string }).value).toMatch(/^Tool call blocked: a beforeToolCall hook gave invalid input/);
  });
});

describe('tool-output truncation', () => {
  const big = tool({
    description: 'prints many lines',
    inputSchema: z.object({ lines: z.number() }),
    execute: async ({ lines }) => Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n'),
  });

  it('the model sees head and tail with a marker; the tool-result event keeps the full output', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'b', name: 'big', input: { lines: 5_000 } }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { big } });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    const seen = (toolOutputs(result.messages).b as { value: string }).value;
    expect(seen.split('\n')).toHaveLength(2001);
    expect(seen).toContain('line 1\n');
    expect(seen).toContain('line 5000');
    expect(seen).toContain('[… 3000 lines');
    expect(seen).toContain('cut here (lines 1001-4000) of 5000 lines');
    expect(String(ofType(events, 'tool-result')[0]!.output).split('\n')).toHaveLength(5000);
  });

  it('limits can be set per tool, and truncation can be turned off', async () => {
    const run = async (truncation: Parameters<typeof createAgent>[0]['truncation']) => {
      const model = mockModel([{ toolCalls: [{ id: 'b', name: 'big', input: { lines: 100 } }] }, { text: ['ok'] }]);
      const result = await createAgent({ model, tools: { big }, truncation }).run('go');
      return (toolOutputs(result.messages).b as { value: string }).value.split('\n').length;
    };
    expect(await run({ tools: { big: { maxLines: 10 } } })).toBe(11);
    expect(await run(false)).toBe(100);
    expect(await run(undefined)).toBe(100);
  });
});
