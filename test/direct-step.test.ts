/**
 * Conformance of `directStep` with the default step: for the same provider
 * stream both must yield the same `StepPart`s (and fail the same way), and an
 * agent must run the same with either.
 */
import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createProviderStreamError } from '@ai-sdk/provider-utils';
import { dynamicTool, jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { directStep } from '../src/model-call/direct-step.js';
import type { StepFunction, StepRequest } from '../src/core/step.js';
import { createAgent, streamLanguageModelCallStep, type AgentEvent, type StepPart } from '../src/index.js';
import { usageFrom } from '../src/core/usage.js';
import { ProviderApprovalRequestError } from '../src/errors/provider-approval-request-error.js';

// ---------------------------------------------------------------------------
// A provider whose stream is exactly the given parts.
// ---------------------------------------------------------------------------

interface StreamScript {
  parts: LanguageModelV4StreamPart[];
  /** doStream rejects with this. */
  reject?: unknown;
  /** The stream errors with this after its parts, instead of closing. */
  streamError?: unknown;
  /** The stream stops after this many parts and waits; `onHold` is called then. */
  holdAt?: number;
  /** While held, ignore the abort signal (wait until cancelled) instead of erroring with the signal's reason. */
  ignoreAbort?: boolean;
}

interface ScriptedProvider {
  model: MockLanguageModelV4;
  calls: LanguageModelV4CallOptions[];
  /** Reasons the stream was cancelled with. */
  cancelled: unknown[];
  onHold: () => void;
}

function provider(script: StreamScript): ScriptedProvider {
  const calls: LanguageModelV4CallOptions[] = [];
  const cancelled: unknown[] = [];
  const self: ScriptedProvider = {
    calls,
    cancelled,
    onHold: () => {},
    model: new MockLanguageModelV4({
      doStream: async (options) => {
        calls.push(options);
        const signal = options.abortSignal;
        if (signal?.aborted) throw signal.reason;
        if (script.reject !== undefined) throw script.reject;
        let index = 0;
        let release: (() => void) | undefined;
        const stream = new ReadableStream<LanguageModelV4StreamPart>(
          {
            async pull(controller) {
              if (script.holdAt !== undefined && index === script.holdAt) {
                index++;
                await new Promise<void>((resolve) => {
                  release = resolve;
                  if (!script.ignoreAbort) {
                    const fail = () => {
                      controller.error(signal!.reason);
                      resolve();
                    };
                    if (signal!.aborted) fail();
                    else signal!.addEventListener('abort', fail, { once: true });
                  }
                  self.onHold();
                });
                return;
              }
              const part = script.parts[script.holdAt !== undefined && index > script.holdAt ? index - 1 : index];
              index++;
              if (part !== undefined) controller.enqueue(part);
              else if (script.streamError !== undefined) controller.error(script.streamError);
              else controller.close();
            },
            cancel(reason) {
              cancelled.push(reason);
              release?.();
            },
          },
          { highWaterMark: 0 },
        );
        return { stream };
      },
    }),
  };
  return self;
}

// ---------------------------------------------------------------------------
// Running a step and recording what it yields, comparably.
// ---------------------------------------------------------------------------

/** Errors compared by name, message and own fields (the two steps may use different bundles' classes). */
function comparable(value: unknown, depth = 0): unknown {
  if (depth > 8) return '…';
  if (value instanceof Error) {
    const fields: Record<string, unknown> = { errorName: value.name, message: value.message };
    for (const [key, field] of Object.entries(value)) fields[key] = comparable(field, depth + 1);
    if (value.cause !== undefined) fields.cause = comparable(value.cause, depth + 1);
    return fields;
  }
  if (Array.isArray(value)) return value.map((item) => comparable(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const fields: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) fields[key] = comparable(field, depth + 1);
    return fields;
  }
  return value;
}

interface Recorded {
  parts: unknown[];
  /** What the iteration threw, if it did. */
  thrown?: unknown;
}

interface RunOptions {
  messages?: ModelMessage[];
  instructions?: StepRequest['instructions'];
  tools?: ToolSet;
  /** Abort once the stream holds. */
  abortOnHold?: boolean;
  /** Abort before the step starts. */
  abortFirst?: boolean;
  /** Stop consuming after this many parts. */
  breakAfter?: number;
}

async function record(step: StepFunction, script: StreamScript, options: RunOptions = {}): Promise<Recorded & { provider: ScriptedProvider }> {
  const scripted = provider(script);
  const controller = new AbortController();
  if (options.abortFirst) controller.abort();
  // A macrotask later, so that the consumer has read everything before the hold.
  if (options.abortOnHold) scripted.onHold = () => setTimeout(() => controller.abort(), 1);
  const parts: StepPart[] = [];
  const recorded: Recorded & { provider: ScriptedProvider } = { parts: [], provider: scripted };
  try {
    for await (const part of step({
      model: scripted.model,
      instructions: options.instructions,
      messages: options.messages ?? [{ role: 'user', content: 'go' }],
      tools: options.tools ?? tools,
      abortSignal: controller.signal,
    })) {
      parts.push(part);
      if (options.breakAfter !== undefined && parts.length >= options.breakAfter) break;
    }
  } catch (error) {
    recorded.thrown = comparable(error);
  }
  recorded.parts = comparable(parts) as unknown[];
  return recorded;
}

/** Runs both steps over the same script and expects the same record; returns it. */
async function expectSameParts(script: StreamScript, options: RunOptions = {}): Promise<Recorded> {
  const reference = await record(streamLanguageModelCallStep, script, options);
  const direct = await record(directStep, script, options);
  expect(direct.parts).toStrictEqual(reference.parts);
  expect(direct.thrown).toStrictEqual(reference.thrown);
  expect(comparable(direct.provider.calls.map(callShape))).toEqual(comparable(reference.provider.calls.map(callShape)));
  return { parts: reference.parts, thrown: reference.thrown };
}

/** What the provider was asked for (everything but the signal). */
function callShape(options: LanguageModelV4CallOptions) {
  const { abortSignal: _signal, ...rest } = options;
  return rest;
}

// ---------------------------------------------------------------------------
// Parts.
// ---------------------------------------------------------------------------

const tools = {
  add: tool({ description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }),
  ping: tool({ description: 'Pings', inputSchema: z.object({}), execute: async () => 'pong' }),
  raw: tool({
    description: 'JSON-schema tool',
    inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }),
    execute: async ({ q }) => q,
  }),
  anything: dynamicTool({ description: 'Dynamic', inputSchema: z.object({ x: z.unknown() }), execute: async () => 'ok' }),
} satisfies ToolSet;

const start: LanguageModelV4StreamPart = { type: 'stream-start', warnings: [] };
const meta = (value: string) => ({ test: { value } });

function usage(input = 10, output = 5): Extract<LanguageModelV4StreamPart, { type: 'finish' }>['usage'] {
  return {
    inputTokens: { total: input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: undefined, reasoning: undefined },
  };
}

function finish(unified: Extract<LanguageModelV4StreamPart, { type: 'finish' }>['finishReason']['unified'] = 'stop', raw: string | undefined = unified): LanguageModelV4StreamPart {
  return { type: 'finish', finishReason: { unified, raw }, usage: usage() };
}

function text(id: string, ...deltas: string[]): LanguageModelV4StreamPart[] {
  return [{ type: 'text-start', id }, ...deltas.map((delta) => ({ type: 'text-delta' as const, id, delta })), { type: 'text-end', id }];
}

function call(toolName: string, input: string, toolCallId = `call-${toolName}`, extra: Partial<Extract<LanguageModelV4StreamPart, { type: 'tool-call' }>> = {}): LanguageModelV4StreamPart {
  return { type: 'tool-call', toolCallId, toolName, input, ...extra };
}

// ---------------------------------------------------------------------------
// Conformance over hand-written streams.
// ---------------------------------------------------------------------------

describe('directStep yields the same parts as streamLanguageModelCallStep', () => {
  it('text', async () => {
    const { parts } = await expectSameParts({ parts: [start, ...text('t', 'Hel', 'lo', ''), finish()] });
    expect(parts.map((part) => (part as StepPart).type)).toEqual(['stream-start', 'text-start', 'text-delta', 'text-delta', 'text-delta', 'text-end', 'finish']);
  });

  it('text and reasoning with provider metadata on start, delta and end', async () => {
    const { parts } = await expectSameParts({
      parts: [
        start,
        { type: 'reasoning-start', id: 'r', providerMetadata: meta('rs') },
        { type: 'reasoning-delta', id: 'r', delta: 'think', providerMetadata: meta('rd') },
        { type: 'reasoning-delta', id: 'r', delta: 'ing' },
        { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig' } } },
        { type: 'text-start', id: 't', providerMetadata: meta('ts') },
        { type: 'text-delta', id: 't', delta: 'answer', providerMetadata: meta('td') },
        { type: 'text-end', id: 't', providerMetadata: meta('te') },
        finish(),
      ],
    });
    expect(parts[4]).toStrictEqual({ type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig' } } });
  });

  it('several text blocks, interleaved, with citations and response metadata', async () => {
    await expectSameParts({
      parts: [
        { type: 'stream-start', warnings: [{ type: 'other', message: 'careful' }] },
        { type: 'response-metadata', id: 'resp-1', modelId: 'm-1', timestamp: new Date(0) },
        { type: 'text-start', id: '0' },
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '0', delta: 'a' },
        { type: 'text-delta', id: '1', delta: 'b' },
        { type: 'text-end', id: '0', citations: [] },
        { type: 'text-delta', id: '1', delta: 'c' },
        { type: 'text-end', id: '1' },
        ...text('2', 'd'),
        { type: 'raw', rawValue: { anything: true } },
        finish(),
      ],
    });
  });

  it('valid tool calls, with provider metadata, after streamed tool input', async () => {
    const { parts } = await expectSameParts({
      parts: [
        start,
        { type: 'tool-input-start', id: 'c1', toolName: 'add' },
        { type: 'tool-input-delta', id: 'c1', delta: '{"a":1,' },
        { type: 'tool-input-delta', id: 'c1', delta: '"b":2}' },
        { type: 'tool-input-end', id: 'c1' },
        call('add', '{"a":1,"b":2}', 'c1', { providerMetadata: meta('call') }),
        call('ping', '', 'c2'),
        call('raw', '{"q":"x"}', 'c3'),
        call('anything', '{"x":[1]}', 'c4'),
        finish('tool-calls'),
      ],
    });
    expect(parts.filter((part) => (part as StepPart).type === 'tool-call')).toStrictEqual([
      { type: 'tool-call', toolCall: { toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 }, providerMetadata: meta('call') } },
      { type: 'tool-call', toolCall: { toolCallId: 'c2', toolName: 'ping', input: {} } },
      { type: 'tool-call', toolCall: { toolCallId: 'c3', toolName: 'raw', input: { q: 'x' } } },
      { type: 'tool-call', toolCall: { toolCallId: 'c4', toolName: 'anything', input: { x: [1] } } },
    ]);
  });

  it('invalid, unknown and malformed tool calls are invalid with the error message', async () => {
    const { parts } = await expectSameParts({
      parts: [
        start,
        call('add', '{"a":"one","b":2}', 'bad-input'),
        call('nope', '{}', 'unknown'),
        call('add', '{"a":1,', 'malformed'),
        call('raw', '{}', 'bad-json-schema'),
        call('add', '', 'empty'),
        finish('tool-calls'),
      ],
    });
    const calls = parts.flatMap((part) => ((part as StepPart).type === 'tool-call' ? [(part as Extract<StepPart, { type: 'tool-call' }>).toolCall] : []));
    expect(calls.map((toolCall) => [toolCall.toolCallId, toolCall.invalid])).toEqual([
      ['bad-input', true],
      ['unknown', true],
      ['malformed', true],
      ['bad-json-schema', undefined], // a jsonSchema() without a validator accepts any JSON
      ['empty', true],
    ]);
    expect(calls[1]!.error).toMatch(/nope/);
    expect(calls[2]!.input).toBe('{"a":1,');
  });

  it('an empty tool set makes every call unknown', async () => {
    await expectSameParts({ parts: [start, call('add', '{"a":1,"b":2}'), finish('tool-calls')] }, { tools: {} });
  });

  it("provider-executed tool calls with their streamed input, their results (an error too), sources and generated files are yielded; the provider's approval request for its own call is refused, one for no known call is an error", async () => {
    const { parts } = await expectSameParts({
      parts: [
        start,
        { type: 'tool-input-start', id: 'p1', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'p1', delta: '{"query":"x"}' },
        { type: 'tool-input-end', id: 'p1' },
        call('web_search', '{"query":"x"}', 'p1', { providerExecuted: true }),
        call('mcp_tool', '{}', 'p2', { providerExecuted: true, dynamic: true }),
        { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'p2' },
        { type: 'tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 1 } },
        { type: 'tool-result', toolCallId: 'p2', toolName: 'mcp_tool', result: { code: 'denied' }, isError: true, providerMetadata: meta('r') },
        { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'missing' },
        { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' },
        { type: 'file', mediaType: 'text/plain', data: { type: 'data', data: 'aGk=' } },
        ...text('t', 'found'),
        finish(),
      ],
    });
    expect(parts.map((part) => (part as StepPart).type)).toEqual([
      'stream-start',
      'provider-tool-input-start',
      'tool-input-delta',
      'provider-tool-call',
      'provider-tool-call',
      'error',
      'provider-tool-result',
      'provider-tool-result',
      'error',
      'source',
      'file',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(parts.find((part) => (part as StepPart).type === 'file')).toStrictEqual({ type: 'file', mediaType: 'text/plain', data: { type: 'data', data: 'aGk=' } });
    // `web_search` is no tool of this set: an invalid call, as the AI SDK parses it; `mcp_tool` the provider calls dynamic.
    parts.splice(1, 2);
    expect(parts[1]).toMatchObject({ type: 'provider-tool-call', toolCall: { toolCallId: 'p1', toolName: 'web_search', input: { query: 'x' }, invalid: true }, dynamic: true });
    expect(parts[2]).toStrictEqual({ type: 'provider-tool-call', toolCall: { toolCallId: 'p2', toolName: 'mcp_tool', input: {} }, dynamic: true });
    const refused = parts.splice(3, 1)[0] as Extract<StepPart, { type: 'error' }>;
    expect(refused.error).toMatchObject({ name: new ProviderApprovalRequestError({ toolCallId: 'p2', approvalId: 'a1' }).name });
    expect(JSON.stringify(refused.error)).toContain('of mcp_tool (p2, approval a1)');
    expect(JSON.stringify(refused.error)).toContain("requireApproval: 'never'");
    expect(parts[3]).toStrictEqual({ type: 'provider-tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 1 }, output: { type: 'json', value: { hits: 1 } } });
    expect(parts[4]).toStrictEqual({
      type: 'provider-tool-result',
      toolCallId: 'p2',
      toolName: 'mcp_tool',
      result: { code: 'denied' },
      output: { type: 'error-json', value: { code: 'denied' } },
      isError: true,
      providerMetadata: meta('r'),
    });
    expect(parts[6]).toStrictEqual({ type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' });
  });

  for (const unified of ['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other'] as const) {
    it(`finishReason ${unified}`, async () => {
      const { parts } = await expectSameParts({ parts: [start, ...text('t', 'x'), finish(unified, `raw_${unified}`)] });
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: unified, rawFinishReason: `raw_${unified}` });
    });
  }

  it('finish without a raw reason, with detailed usage and provider metadata', async () => {
    const { parts } = await expectSameParts({
      parts: [
        start,
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: undefined },
          usage: {
            inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: 0 },
            outputTokens: { total: 30, text: 20, reasoning: 10 },
            raw: { prompt_tokens: 100 },
          },
          providerMetadata: meta('finish'),
        },
      ],
    });
    expect(parts.find((part) => (part as StepPart).type === 'finish')).toMatchObject({ type: 'finish', usage: { inputTokens: 100, outputTokens: 30, totalTokens: 130, inputTokenDetails: { cacheReadTokens: 40 } } });
  });

  it('usage with unknown token counts', async () => {
    await expectSameParts({
      parts: [
        {
          type: 'finish',
          finishReason: { unified: 'other', raw: 'unknown' },
          usage: {
            inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
        },
      ],
    });
  });

  const errorPayloads: Array<[string, unknown]> = [
    ['an Error', new Error('boom')],
    ['an APICallError', new APICallError({ message: 'Overloaded', url: 'https://api', requestBodyValues: {}, statusCode: 529, isRetryable: true })],
    ['a bare message', { message: 'Overloaded' }],
    ['a nested provider error', { type: 'error', error: { type: 'rate_limit_error', message: 'slow down', code: 429 } }],
    ['a response error', { response: { error: { message: 'internal server error', status_code: '500' } } }],
    ['an explicit retryability', { message: 'nope', statusCode: 503, is_retryable: false }],
    ['a provider stream error', createProviderStreamError({ message: 'provider says no', code: 'bad', statusCode: 400, data: { raw: true } })],
    ['a string', 'something broke'],
    ['an object without a message', { code: 500 }],
    ['undefined', undefined],
  ];
  for (const [label, error] of errorPayloads) {
    it(`an error part mid-stream: ${label}`, async () => {
      const { parts } = await expectSameParts({ parts: [start, ...text('t', 'partial'), { type: 'error', error }, ...text('u', 'after'), finish()] });
      expect(parts.map((part) => (part as StepPart).type)).toContain('error');
    });
  }

  it('a rejected doStream is an error part', async () => {
    const rejection = new APICallError({ message: 'Unauthorized', url: 'https://api', requestBodyValues: {}, statusCode: 401 });
    const { parts } = await expectSameParts({ parts: [], reject: rejection });
    expect(parts).toStrictEqual([{ type: 'error', error: comparable(rejection) }]);
  });

  it('a prompt the SDK refuses is an error part', async () => {
    await expectSameParts({ parts: [finish()] }, { messages: [] });
    await expectSameParts({ parts: [finish()] }, { messages: [{ role: 'system', content: 'no' }] });
    await expectSameParts(
      { parts: [finish()] },
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'add', input: {} }] }, { role: 'user', content: 'go' }] },
    );
  });

  it('sends the provider the same prompt, tools and tool choice (history, instructions)', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'add 1 and 2' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'adding', providerOptions: meta('r') },
          { type: 'text', text: 'Adding.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'json', value: 3 } }] },
    ];
    await expectSameParts({ parts: [start, ...text('t', '3'), finish()] }, { messages, instructions: 'Be brief.' });
    await expectSameParts({ parts: [finish()] }, { messages, instructions: [{ role: 'system', content: 'a' }, { role: 'system', content: 'b' }] });
    await expectSameParts({ parts: [finish()] }, { messages, tools: {} });
  });

  it('a stream that ends without finish', async () => {
    const { parts } = await expectSameParts({ parts: [start, ...text('t', 'cut')] });
    expect(parts.at(-1)).toMatchObject({ type: 'text-end' });
  });

  it('a stream that errors mid-way throws the error', async () => {
    const result = await expectSameParts({ parts: [start, ...text('t', 'cut')], streamError: new TypeError('terminated') });
    expect(result.thrown).toMatchObject({ errorName: 'TypeError', message: 'terminated' });
  });

  it('a malformed finish part fails the same way', async () => {
    const result = await expectSameParts({
      parts: [start, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: undefined } as unknown as LanguageModelV4StreamPart],
    });
    expect(result.thrown).toBeDefined();
  });

  it('abort mid-stream: the parts so far, then the abort reason', async () => {
    const result = await expectSameParts({ parts: [start, ...text('t', 'a', 'b'), finish()], holdAt: 3 }, { abortOnHold: true });
    expect(result.parts).toHaveLength(3);
    expect(result.thrown).toMatchObject({ errorName: 'AbortError' });
  });

  it('abort before the call: the provider’s rejection is an error part', async () => {
    const result = await expectSameParts({ parts: [finish()] }, { abortFirst: true });
    expect(result.parts).toMatchObject([{ type: 'error', error: { errorName: 'AbortError' } }]);
  });

  it('leaving early cancels the provider stream', async () => {
    const script: StreamScript = { parts: [start, ...text('t', 'a', 'b', 'c'), finish()] };
    await expectSameParts(script, { breakAfter: 2 });
    const reference = await record(streamLanguageModelCallStep, script, { breakAfter: 2 });
    const direct = await record(directStep, script, { breakAfter: 2 });
    await vi.waitFor(() => expect(reference.provider.cancelled).toHaveLength(1), { timeout: 10_000, interval: 5 });
    await vi.waitFor(() => expect(direct.provider.cancelled).toHaveLength(1), { timeout: 10_000, interval: 5 });
  });
});

describe('directStep on its own', () => {
  it('cancels a provider stream that ignores the abort, and throws the abort reason', async () => {
    const result = await record(directStep, { parts: [start, ...text('t', 'a'), finish()], holdAt: 3, ignoreAbort: true }, { abortOnHold: true });
    expect(result.parts).toHaveLength(3);
    expect(result.thrown).toMatchObject({ errorName: 'AbortError' });
    expect(result.provider.cancelled).toHaveLength(1);
  });

  it('is done after the stream closes, and after return()', async () => {
    const scripted = provider({ parts: [finish()] });
    const iterator = directStep({ model: scripted.model, messages: [{ role: 'user', content: 'go' }], tools: {}, abortSignal: new AbortController().signal })[
      Symbol.asyncIterator
    ]();
    expect((await iterator.next()).value).toMatchObject({ type: 'finish' });
    expect(await iterator.next()).toStrictEqual({ done: true, value: undefined });
    expect(await iterator.next()).toStrictEqual({ done: true, value: undefined });
    expect(await iterator.return?.()).toStrictEqual({ done: true, value: undefined });
  });

  it('prepares a tool set’s JSON Schemas once, and again when the set changes', async () => {
    const toolSet: ToolSet = { add: tools.add };
    const run = async () => {
      const scripted = provider({ parts: [finish()] });
      for await (const _part of directStep({ model: scripted.model, messages: [{ role: 'user', content: 'go' }], tools: toolSet, abortSignal: new AbortController().signal }));
      return scripted.calls[0]!.tools;
    };
    const first = await run();
    const second = await run();
    expect(second).toStrictEqual(first);
    expect(second).not.toBe(first);
    toolSet.ping = tools.ping;
    expect((await run())?.map((entry) => entry.name)).toEqual(['add', 'ping']);
  });
});

// ---------------------------------------------------------------------------
// Conformance over generated streams.
// ---------------------------------------------------------------------------

const idArb = fc.constantFrom('0', '1', 'r');
const metaArb = fc.option(fc.constantFrom(meta('a'), { other: { n: 1 } }), { nil: undefined });
const withMeta = <T extends object>(part: T, providerMetadata: object | undefined): T => (providerMetadata ? { ...part, providerMetadata } : part);

const partArb: fc.Arbitrary<LanguageModelV4StreamPart> = fc.oneof(
  fc.tuple(fc.constantFrom('text-start', 'text-end', 'reasoning-start', 'reasoning-end'), idArb, metaArb).map(([type, id, m]) => withMeta({ type, id }, m) as LanguageModelV4StreamPart),
  fc.tuple(fc.constantFrom('text-delta', 'reasoning-delta'), idArb, fc.string({ maxLength: 4 }), metaArb).map(([type, id, delta, m]) => withMeta({ type, id, delta }, m) as LanguageModelV4StreamPart),
  fc
    .tuple(fc.constantFrom('add', 'ping', 'raw', 'anything', 'unknown'), fc.constantFrom('{"a":1,"b":2}', '{"q":"s"}', '{}', '', '{"a":', '{"x":null}', 'null'), fc.boolean(), metaArb)
    .map(([toolName, input, providerExecuted, m]) => withMeta(call(toolName, input, `c-${toolName}-${input.length}`, providerExecuted ? { providerExecuted } : {}), m)),
  fc.constantFrom<LanguageModelV4StreamPart>(
    start,
    { type: 'response-metadata', id: 'r1' },
    { type: 'tool-input-start', id: 'i', toolName: 'add' },
    { type: 'tool-input-delta', id: 'i', delta: '{' },
    { type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c-add-13' },
    { type: 'error', error: { message: 'Overloaded' } },
    { type: 'error', error: new Error('e') },
    { type: 'error', error: 'plain' },
  ),
);

const finishArb = fc
  .tuple(fc.constantFrom('stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other' as const), fc.option(fc.string({ maxLength: 5 }), { nil: undefined }), fc.nat(1000), fc.nat(1000))
  .map(([unified, raw, input, output]): LanguageModelV4StreamPart => ({ type: 'finish', finishReason: { unified, raw }, usage: usage(input, output) }));

describe('directStep conformance over generated streams', () => {
  it('yields the same parts for any sequence of provider parts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(partArb, { maxLength: 12 }), fc.option(finishArb, { nil: undefined }), async (parts, end) => {
        await expectSameParts({ parts: end ? [...parts, end] : parts });
      }),
      { numRuns: 150 },
    );
  });
});

// ---------------------------------------------------------------------------
// The agent with directStep.
// ---------------------------------------------------------------------------

/** A provider that answers each call with the next list of parts. */
function turnsModel(turns: LanguageModelV4StreamPart[][]) {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const parts = turns[index++];
      if (parts === undefined) throw new Error('no more turns');
      let at = 0;
      return { stream: new ReadableStream<LanguageModelV4StreamPart>({ pull: (controller) => (at < parts.length ? controller.enqueue(parts[at++]!) : controller.close()) }, { highWaterMark: 0 }) };
    },
  });
}

const loopTurns = (): LanguageModelV4StreamPart[][] => [
  [
    start,
    { type: 'reasoning-start', id: 'r', providerMetadata: meta('r') },
    { type: 'reasoning-delta', id: 'r', delta: 'plan' },
    { type: 'reasoning-end', id: 'r' },
    ...text('t', 'Adding ', 'twice.'),
    call('add', '{"a":1,"b":2}', 'c1'),
    call('add', '{"a":"x","b":2}', 'c2'),
    finish('tool-calls'),
  ],
  [start, call('nope', '{}', 'c3'), call('add', '{"a":3,"b":4}', 'c4'), finish('tool-calls')],
  [start, call('ping', '', 'c5'), finish('tool-calls')],
  [start, ...text('t', 'Done: 3 and 7.'), finish('stop')],
];

/** Events without what differs between two runs (run ids, durations). */
function stable(events: AgentEvent[]): unknown {
  // Timings differ from run to run; the trace is all timings; a response without the provider's id gets one from the run's.
  const timeless = events.filter((event) => event.type !== 'trace');
  const varying = new Set(['runId', 'callId', 'durationMs', 'trace', 'response']);
  return JSON.parse(JSON.stringify(timeless, (key, value: unknown) => (varying.has(key) ? undefined : value)));
}

describe('an agent with step: directStep', () => {
  it('runs a multi-step tool loop exactly as with the default step', async () => {
    const runWith = async (step: StepFunction) => {
      const agent = createAgent({ model: turnsModel(loopTurns()), tools, step, maxSteps: 10 });
      const events: AgentEvent[] = [];
      agent.events$.subscribe((event) => events.push(event));
      const result = await agent.run('add things');
      return { result, events };
    };
    const direct = await runWith(directStep);
    const reference = await runWith(streamLanguageModelCallStep);

    expect(direct.result).toMatchObject({ outcome: 'completed', stepCount: 4, toolCallCount: 5, text: 'Done: 3 and 7.' });
    expect(direct.result.usage).toEqual(usageFrom({ inputTokens: 40, outputTokens: 20 }));
    const toolResults = direct.result.messages
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content)
      .map((part) => (part.type === 'tool-result' ? [part.toolCallId, part.output.type] : []));
    expect(toolResults).toEqual([
      ['c1', 'json'],
      ['c2', 'error-text'],
      ['c3', 'error-text'],
      ['c4', 'json'],
      ['c5', 'text'],
    ]);
    expect(direct.result.messages).toStrictEqual(reference.result.messages);
    expect(stable(direct.events)).toStrictEqual(stable(reference.events));
  });
});
