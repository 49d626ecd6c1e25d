import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4FinishReason,
  type LanguageModelV4StreamPart,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { createOpenAI } from '@ai-sdk/openai';
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent.js';
import { classifyError } from '../../src/errors/classify-error.js';
import { pullStream, untilAborted } from '../../src/test/pull-stream.js';
import { recordModel } from '../../src/test/record-model.js';
import { scriptTurnSchema } from '../../src/test/script-schema.js';
import { scriptedModel } from '../../src/test/scripted-model.js';
import { errorResponse, streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';

const callOptions: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'How warm is it in Oslo?' }] }],
};

const preamble: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp_1', modelId: 'mock-model', timestamp: new Date(0) },
];

function textBlock(id: string, ...deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: 'text-start', id },
    ...deltas.map((delta) => ({ type: 'text-delta' as const, id, delta })),
    { type: 'text-end', id },
  ];
}

function reasoningBlock(id: string, ...deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: 'reasoning-start', id },
    ...deltas.map((delta) => ({ type: 'reasoning-delta' as const, id, delta })),
    { type: 'reasoning-end', id },
  ];
}

/** Streams the input in two halves, then the complete call, as providers do. */
function toolCall(toolCallId: string, toolName: string, input: string): LanguageModelV4StreamPart[] {
  const half = Math.floor(input.length / 2);
  return [
    { type: 'tool-input-start', id: toolCallId, toolName },
    { type: 'tool-input-delta', id: toolCallId, delta: input.slice(0, half) },
    { type: 'tool-input-delta', id: toolCallId, delta: input.slice(half) },
    { type: 'tool-input-end', id: toolCallId },
    { type: 'tool-call', toolCallId, toolName, input },
  ];
}

function usage(inputTokens: number, outputTokens: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

function finish(
  unified: LanguageModelV4FinishReason['unified'],
  inputTokens: number,
  outputTokens: number,
): LanguageModelV4StreamPart {
  return { type: 'finish', finishReason: { unified, raw: `raw_${unified}` }, usage: usage(inputTokens, outputTokens) };
}

function apiCallError(statusCode: number, message: string, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) {
  return new APICallError({
    message,
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    isRetryable: statusCode === 429 || statusCode >= 500,
    ...extra,
  });
}

function connectionReset(outerMessage: 'fetch failed' | 'terminated', message: string): TypeError {
  return new TypeError(outerMessage, { cause: Object.assign(new Error(message), { code: 'ECONNRESET' }) });
}

/** How a provider stream goes on after its parts: resolving closes it, rejecting errors it. */
type AfterParts = (signal: AbortSignal | undefined) => Promise<undefined>;

const failWith =
  (error: Error): AfterParts =>
  () =>
    Promise.reject(error);
const failWhenAborted: AfterParts = (signal) => untilAborted(signal);
const closeWhenAborted: AfterParts = (signal) => untilAborted(signal).catch(() => undefined);

/** One provider call: `doStream` rejects, or it streams `parts` and then closes (unless `afterParts` says otherwise). */
type ProviderCall = { rejectWith: unknown } | { parts: LanguageModelV4StreamPart[]; afterParts?: AfterParts };

function partSource(parts: LanguageModelV4StreamPart[], afterParts: AfterParts | undefined, signal: AbortSignal | undefined) {
  let index = 0;
  return pullStream<LanguageModelV4StreamPart>(() => parts[index++] ?? afterParts?.(signal));
}

/** A MockLanguageModelV4 that answers each doStream call with the next of `calls`, over a pull-based stream. */
function providerModel(calls: ProviderCall[]): MockLanguageModelV4 {
  let callCount = 0;
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      const call = calls[callCount++];
      if (call === undefined) throw new Error(`the provider has ${calls.length} calls; asked for call ${callCount}`);
      if ('rejectWith' in call) throw call.rejectWith;
      return { stream: partSource(call.parts, call.afterParts, abortSignal) };
    },
  });
}

interface StreamedCall {
  parts: LanguageModelV4StreamPart[];
  /** How `doStream` rejected or the stream errored, if it did. */
  failure?: unknown;
}

async function streamCall(model: LanguageModelV4, options = callOptions): Promise<StreamedCall> {
  const parts: LanguageModelV4StreamPart[] = [];
  try {
    const { stream } = await model.doStream(options);
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (failure) {
    return { parts, failure };
  }
}

/** The parts a replay must reproduce, without ids, timestamps and block boundaries. */
function essentials(parts: LanguageModelV4StreamPart[]): unknown[] {
  return parts.flatMap((part): unknown[] => {
    switch (part.type) {
      case 'text-delta':
        return [{ text: part.delta }];
      case 'reasoning-delta':
        return [{ reasoning: part.delta }];
      case 'tool-call':
        return [{ toolCall: { id: part.toolCallId, name: part.toolName, input: part.input } }];
      case 'finish':
        return [
          {
            finish: part.finishReason.unified,
            inputTokens: part.usage.inputTokens.total,
            outputTokens: part.usage.outputTokens.total,
          },
        ];
      case 'error':
        return [{ error: APICallError.isInstance(part.error) ? { status: part.error.statusCode, message: part.error.message } : part.error }];
      default:
        return [];
    }
  });
}

async function readUntilTextDelta(reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>): Promise<void> {
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (read.value.type === 'text-delta') return;
  }
  throw new Error('the stream ended before a text delta');
}

async function streamEachCall(model: LanguageModelV4, count: number): Promise<StreamedCall[]> {
  const calls: StreamedCall[] = [];
  for (let call = 0; call < count; call++) calls.push(await streamCall(model));
  return calls;
}

const agentLikeCalls: ProviderCall[] = [
  {
    parts: [
      ...preamble,
      ...reasoningBlock('r0', 'The user wants ', 'the weather.'),
      ...textBlock('t1', 'Let me ', 'check.'),
      ...toolCall('call_w1', 'weather', '{"city":"Oslo"}'),
      finish('tool-calls', 120, 18),
    ],
  },
  {
    parts: [
      ...preamble,
      ...toolCall('call_w2', 'weather', '{"city": "Oslo"'),
      ...toolCall('call_w3', 'weather', '"Bergen"'),
      finish('tool-calls', 160, 9),
    ],
  },
  {
    parts: [...preamble, ...textBlock('t0', 'It is ', '4 °C', ''), ...textBlock('t1', ' in Oslo.'), finish('length', 210, 6)],
  },
];

const rateLimited = apiCallError(429, 'Rate limit reached', {
  responseHeaders: { 'retry-after-ms': '250' },
  responseBody: '{"error":{"message":"Rate limit reached"}}',
});

const fetchFailed = connectionReset('fetch failed', 'read ECONNRESET');
const overloadedPart: LanguageModelV4StreamPart = { type: 'error', error: apiCallError(529, 'Overloaded') };
const midBodyReset = connectionReset('terminated', 'other side closed');
/** A text block cut off after its first delta. */
const cutOffText: LanguageModelV4StreamPart[] = [...preamble, { type: 'text-start', id: 't0' }, { type: 'text-delta', id: 't0', delta: 'Hel' }];

const errorPartCall: ProviderCall = {
  parts: [
    ...preamble,
    ...reasoningBlock('r0', 'Thinking'),
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Par' },
    { type: 'text-delta', id: 't1', delta: 'tial' },
    overloadedPart,
  ],
};
const brokenStreamCall: ProviderCall = { parts: cutOffText, afterParts: failWith(midBodyReset) };
const noFinishCall: ProviderCall = { parts: cutOffText };

const failingCalls: ProviderCall[] = [
  { rejectWith: rateLimited },
  { rejectWith: fetchFailed },
  errorPartCall,
  brokenStreamCall,
  noFinishCall,
  { parts: cutOffText, afterParts: failWith(new DOMException('This operation was aborted', 'AbortError')) },
];

describe('recordModel', () => {
  it('replays text and reasoning deltas, tool calls, finish reasons and usage exactly as the provider streamed them', async () => {
    const recording = recordModel(providerModel(agentLikeCalls));

    const original = await streamEachCall(recording.model, agentLikeCalls.length);
    const replayed = await streamEachCall(scriptedModel(recording.turns()), agentLikeCalls.length);

    expect(replayed.map(({ parts }) => essentials(parts))).toEqual(original.map(({ parts }) => essentials(parts)));
    expect(original.map(({ parts }) => essentials(parts).length)).toEqual([6, 3, 5]);
    expect(replayed.every(({ failure }) => failure === undefined)).toBe(true);
  });

  it('records deltas as arrays, valid JSON input as an object and any other input as the raw string', async () => {
    const recording = recordModel(providerModel(agentLikeCalls));
    await streamEachCall(recording.model, agentLikeCalls.length);

    expect(recording.turns()).toEqual([
      {
        reasoning: ['The user wants ', 'the weather.'],
        text: ['Let me ', 'check.'],
        toolCalls: [{ id: 'call_w1', name: 'weather', input: { city: 'Oslo' } }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 120, outputTokens: 18, noCacheTokens: 120, cacheReadTokens: 0, textTokens: 18 },
      },
      {
        toolCalls: [
          { id: 'call_w2', name: 'weather', input: '{"city": "Oslo"' },
          { id: 'call_w3', name: 'weather', input: '"Bergen"' },
        ],
        finishReason: 'tool-calls',
        usage: { inputTokens: 160, outputTokens: 9, noCacheTokens: 160, cacheReadTokens: 0, textTokens: 9 },
      },
      {
        text: ['It is ', '4 °C', '', ' in Oslo.'],
        finishReason: 'length',
        usage: { inputTokens: 210, outputTokens: 6, noCacheTokens: 210, cacheReadTokens: 0, textTokens: 6 },
      },
    ]);
  });

  it('passes every part, the request and the response through unchanged, reading the provider only on demand', async () => {
    const [firstCall] = agentLikeCalls as [Extract<ProviderCall, { parts: unknown }>];
    let pulls = 0;
    const source = pullStream(() => firstCall.parts[pulls++]);
    const provider = new MockLanguageModelV4({
      doStream: { stream: source, request: { body: { sent: true } }, response: { headers: { 'x-request-id': 'abc' } } },
    });
    const recording = recordModel(provider);

    const result = await recording.model.doStream(callOptions);
    expect(result.request).toEqual({ body: { sent: true } });
    expect(result.response).toEqual({ headers: { 'x-request-id': 'abc' } });
    expect(pulls).toBe(0);

    const reader = result.stream.getReader();
    const first = await reader.read();
    expect(pulls).toBe(1);
    const seen = [first.value];
    for (let next = await reader.read(); !next.done; next = await reader.read()) seen.push(next.value);

    expect(seen).toHaveLength(firstCall.parts.length);
    seen.forEach((part, index) => expect(part).toBe(firstCall.parts[index]));
  });

  it('re-throws a rejected call and forwards error parts and stream errors as the very same errors', async () => {
    const recording = recordModel(providerModel(failingCalls));

    const [rejected, reset, errorPart, brokenStream] = await streamEachCall(recording.model, 4);

    expect(rejected?.failure).toBe(rateLimited);
    expect(reset?.failure).toBe(fetchFailed);
    expect(errorPart?.parts.at(-1)).toBe(overloadedPart);
    expect(brokenStream?.failure).toBe(midBodyReset);
  });

  it('replays a 429 APICallError with the same status, message and retry-after-ms header', async () => {
    const recording = recordModel(providerModel([{ rejectWith: rateLimited }]));
    await streamCall(recording.model);

    expect(recording.turns()).toEqual([
      {
        error: {
          status: 429,
          message: 'Rate limit reached',
          headers: { 'retry-after-ms': '250' },
          body: '{"error":{"message":"Rate limit reached"}}',
        },
      },
    ]);
    const { failure } = await streamCall(scriptedModel(recording.turns()));
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      statusCode: 429,
      message: 'Rate limit reached',
      responseHeaders: { 'retry-after-ms': '250' },
      isRetryable: true,
    });
    expect(classifyError(failure, 0)).toEqual(classifyError(rateLimited, 0));
  });

  it('records a failure without an HTTP status as a network failure that replays as a reset connection', async () => {
    const recording = recordModel(providerModel([{ rejectWith: fetchFailed }]));
    await streamCall(recording.model);

    expect(recording.turns()).toEqual([{ error: { message: 'read ECONNRESET' } }]);
    const { failure } = await streamCall(scriptedModel(recording.turns()));
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { message: 'read ECONNRESET' } });
    expect(classifyError(failure).kind).toBe('network');
  });

  it('records an error part after the text deltas before it, and the replay fails after as many deltas', async () => {
    const recording = recordModel(providerModel([errorPartCall]));
    const original = await streamCall(recording.model);

    expect(recording.turns()).toEqual([
      { reasoning: ['Thinking'], text: ['Par', 'tial'], error: { status: 529, message: 'Overloaded', after: 2 } },
    ]);
    const replayed = await streamCall(scriptedModel(recording.turns()));
    expect(essentials(replayed.parts)).toEqual(essentials(original.parts));
    expect(essentials(replayed.parts).at(-1)).toEqual({ error: { status: 529, message: 'Overloaded' } });
  });

  it('records a stream that breaks mid-body as a network failure after the deltas streamed before it', async () => {
    const recording = recordModel(providerModel([brokenStreamCall]));
    await streamCall(recording.model);

    expect(recording.turns()).toEqual([{ text: ['Hel'], error: { message: 'other side closed', after: 1 } }]);
    const replayed = await streamCall(scriptedModel(recording.turns()));
    expect(essentials(replayed.parts)).toEqual([{ text: 'Hel' }]);
    expect(replayed.failure).toMatchObject({ message: 'terminated', cause: { message: 'other side closed' } });
  });

  it('records a stream that closes without a finish part, and the replay closes without one too', async () => {
    const recording = recordModel(providerModel([noFinishCall]));
    const original = await streamCall(recording.model);

    expect(recording.turns()).toEqual([{ text: ['Hel'], endWithoutFinish: true }]);
    const replayed = await streamCall(scriptedModel(recording.turns()));
    expect(replayed.parts.some((part) => part.type === 'finish')).toBe(false);
    expect(essentials(replayed.parts)).toEqual(essentials(original.parts));
  });

  it('records only what arrived before an abort, and the caller gets the abort error itself', async () => {
    const abortController = new AbortController();
    const recording = recordModel(providerModel([{ parts: cutOffText, afterParts: failWhenAborted }]));
    const reader = (await recording.model.doStream({ ...callOptions, abortSignal: abortController.signal })).stream.getReader();
    await readUntilTextDelta(reader);
    const nextRead = reader.read();

    abortController.abort();

    await expect(nextRead).rejects.toBe(abortController.signal.reason);
    expect(recording.turns()).toEqual([{ text: ['Hel'] }]);
  });

  it('marks nothing when the provider answers an abort by closing its stream', async () => {
    const abortController = new AbortController();
    const recording = recordModel(providerModel([{ parts: cutOffText, afterParts: closeWhenAborted }]));
    const reader = (await recording.model.doStream({ ...callOptions, abortSignal: abortController.signal })).stream.getReader();
    await readUntilTextDelta(reader);
    const nextRead = reader.read();

    abortController.abort();

    await expect(nextRead).resolves.toEqual({ done: true, value: undefined });
    expect(recording.turns()).toEqual([{ text: ['Hel'] }]);
  });

  it('records an aborted call that never started streaming as an empty turn', async () => {
    const abortController = new AbortController();
    abortController.abort();
    const aborted = new DOMException('This operation was aborted', 'AbortError');
    const recording = recordModel(providerModel([{ rejectWith: aborted }]));

    const { failure } = await streamCall(recording.model, { ...callOptions, abortSignal: abortController.signal });

    expect(failure).toBe(aborted);
    expect(recording.turns()).toEqual([{}]);
  });

  it('marks nothing when the caller cancels the stream while a read waits, and cancels the provider stream', async () => {
    let cancelReason: unknown;
    let index = 0;
    let sourceStartsWaiting = (): void => {};
    const sourceWaits = new Promise<void>((resolve) => (sourceStartsWaiting = resolve));
    const source = new ReadableStream<LanguageModelV4StreamPart>(
      {
        pull: async (controller) => {
          const part = cutOffText[index++];
          if (part !== undefined) return controller.enqueue(part);
          sourceStartsWaiting();
          return new Promise<void>(() => {});
        },
        cancel: (reason) => void (cancelReason = reason),
      },
      { highWaterMark: 0 },
    );
    const recording = recordModel(new MockLanguageModelV4({ doStream: { stream: source } }));
    const reader = (await recording.model.doStream(callOptions)).stream.getReader();
    await readUntilTextDelta(reader);
    const nextRead = reader.read();
    await sourceWaits;

    await reader.cancel('enough');

    await expect(nextRead).resolves.toEqual({ done: true, value: undefined });
    expect(cancelReason).toBe('enough');
    expect(recording.turns()).toEqual([{ text: ['Hel'] }]);
  });

  it('records doGenerate calls from the result content, and the replay generates the same content', async () => {
    const provider = new MockLanguageModelV4({
      doGenerate: {
        content: [
          { type: 'reasoning', text: 'Need the weather.' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'gen_1', toolName: 'weather', input: '{"city":"Oslo"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: usage(20, 8),
        warnings: [],
      },
    });
    const recording = recordModel(provider);

    const original = await recording.model.doGenerate(callOptions);

    expect(recording.turns()).toEqual([
      {
        reasoning: ['Need the weather.'],
        text: ['Checking.'],
        toolCalls: [{ id: 'gen_1', name: 'weather', input: { city: 'Oslo' } }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 20, outputTokens: 8, noCacheTokens: 20, cacheReadTokens: 0, textTokens: 8 },
      },
    ]);
    const replayed = await scriptedModel(recording.turns()).doGenerate(callOptions);
    expect(replayed.content).toEqual(original.content);
    expect(replayed.finishReason.unified).toBe('tool-calls');
    expect([replayed.usage.inputTokens.total, replayed.usage.outputTokens.total]).toEqual([20, 8]);
  });

  it('records a rejected doGenerate call as an error turn and re-throws the same error', async () => {
    const recording = recordModel(new MockLanguageModelV4({ doGenerate: () => Promise.reject(rateLimited) }));

    await expect(recording.model.doGenerate(callOptions)).rejects.toBe(rateLimited);
    expect(recording.turns()).toEqual([{ error: expect.objectContaining({ status: 429, message: 'Rate limit reached' }) }]);
  });

  it('produces turns that validate against scriptTurnSchema and survive a JSON round trip', async () => {
    const calls = [...agentLikeCalls, ...failingCalls];
    const recording = recordModel(providerModel(calls));
    await streamEachCall(recording.model, calls.length);

    const turns = recording.turns();

    expect(turns).toHaveLength(calls.length);
    expect(scriptTurnSchema.array().parse(turns)).toStrictEqual(turns);
    expect(JSON.parse(JSON.stringify(turns))).toStrictEqual(turns);
  });

  it('lists turns in call order when a later call answers first', async () => {
    let answerFirstCall = (): void => {};
    const firstCallAnswered = new Promise<void>((resolve) => (answerFirstCall = resolve));
    const answers = ['first', 'second'];
    const provider = new MockLanguageModelV4({
      doStream: async () => {
        const answer = answers.shift()!;
        if (answer === 'first') await firstCallAnswered;
        return { stream: partSource([...preamble, ...textBlock('t0', answer), finish('stop', 1, 1)], undefined, undefined) };
      },
    });
    const recording = recordModel(provider);

    const firstCall = streamCall(recording.model);
    await streamCall(recording.model);
    answerFirstCall();
    await firstCall;

    expect(recording.turns().map((turn) => turn.text)).toEqual([['first'], ['second']]);
  });

  it('keeps the first failure of a call', async () => {
    const recording = recordModel(providerModel([{ ...errorPartCall, afterParts: failWith(midBodyReset) }]));
    await streamCall(recording.model);

    expect(recording.turns()[0]?.error).toEqual({ status: 529, message: 'Overloaded', after: 2 });
  });

  it('leaves out tool calls the provider executed itself, with their results', async () => {
    const recording = recordModel(
      providerModel([
        {
          parts: [
            ...preamble,
            { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{"query":"Oslo"}', providerExecuted: true },
            { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: { hits: 3 } },
            ...toolCall('call_1', 'weather', '{"city":"Oslo"}'),
            finish('tool-calls', 10, 5),
          ],
        },
      ]),
    );
    await streamCall(recording.model);

    expect(recording.turns()[0]?.toolCalls).toEqual([{ id: 'call_1', name: 'weather', input: { city: 'Oslo' } }]);
  });

  it('hands out copies: changing returned turns does not change the recording', async () => {
    const recording = recordModel(providerModel(agentLikeCalls));
    await streamEachCall(recording.model, 1);
    const before = JSON.parse(JSON.stringify(recording.turns())) as unknown;

    const changed = recording.turns();
    (changed[0]!.text as string[]).push('extra');
    (changed[0]!.toolCalls![0]!.input as { city: string }).city = 'Bergen';
    changed[0]!.usage!.inputTokens = 0;

    expect(recording.turns()).toEqual(before);
  });
});

describe('recording an agent run', () => {
  const weather = tool({
    description: 'Current temperature in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 4 }),
  });
  const agentOptions = { instructions: 'Answer briefly.', tools: { weather }, maxSteps: 5 };
  const prompt = 'How warm is it in Oslo?';

  it('replays the run offline with the same messages, tool-call ids and outcome', async () => {
    const recording = recordModel(
      providerModel([
        {
          parts: [
            ...preamble,
            ...reasoningBlock('r0', 'Look up ', 'Oslo.'),
            ...textBlock('t1', 'Checking ', 'the weather.'),
            ...toolCall('call_Xy7Q2', 'weather', '{"city":"Oslo"}'),
            finish('tool-calls', 52, 14),
          ],
        },
        { parts: [...preamble, ...textBlock('t0', 'It is ', '4 °C ', 'in Oslo.'), finish('stop', 81, 7)] },
      ]),
    );

    const recorded = await createAgent({ model: recording.model, ...agentOptions }).run(prompt);
    const replayed = await createAgent({ model: scriptedModel(recording.turns()), ...agentOptions }).run(prompt);

    expect(recorded).toMatchObject({ outcome: 'completed', stepCount: 2, toolCallCount: 1, text: 'It is 4 °C in Oslo.' });
    expect(JSON.stringify(recorded.messages)).toContain('call_Xy7Q2');
    expect(replayed.messages).toEqual(recorded.messages);
    expect(replayed.outcome).toBe(recorded.outcome);
    expect(replayed.usage).toEqual(recorded.usage);
    expect(replayed.text).toBe(recorded.text);
  });

  it('replays a run that retried a rate-limited call', async () => {
    const recording = recordModel(
      providerModel([
        { rejectWith: apiCallError(429, 'Slow down', { responseHeaders: { 'retry-after-ms': '5' } }) },
        { parts: [...preamble, ...toolCall('call_1', 'weather', '{"city":"Oslo"}'), finish('tool-calls', 40, 9)] },
        { parts: [...preamble, ...textBlock('t0', '4 °C.'), finish('stop', 60, 3)] },
      ]),
    );

    const recorded = await createAgent({ model: recording.model, ...agentOptions }).run(prompt);
    const replayed = await createAgent({ model: scriptedModel(recording.turns()), ...agentOptions }).run(prompt);

    expect(recording.turns()).toHaveLength(3);
    expect(recorded.outcome).toBe('completed');
    expect(replayed.messages).toEqual(recorded.messages);
    expect(replayed.outcome).toBe(recorded.outcome);
  });

  describe('through a real provider over HTTP', () => {
    const serve = useOpenAIServers();

    it('replays an @ai-sdk/openai run, rate limit and retry included, with the same messages and outcome', async () => {
      const server = await serve([
        errorResponse(429, { headers: { 'retry-after-ms': '5' } }),
        streamResponse({ text: 'Let me check.', toolCalls: [{ id: 'call_http_1', name: 'weather', arguments: { city: 'Oslo' } }] }),
        streamResponse({ text: ['It is ', '4 °C.'], usage: { prompt_tokens: 70, completion_tokens: 6 } }),
      ]);
      const recording = recordModel(createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).chat('gpt-test'));

      const recorded = await createAgent({ model: recording.model, ...agentOptions }).run(prompt);
      const replayed = await createAgent({ model: scriptedModel(recording.turns()), ...agentOptions }).run(prompt);

      expect(server.requests).toHaveLength(3);
      expect(recorded).toMatchObject({ outcome: 'completed', stepCount: 2, text: 'It is 4 °C.' });
      expect(recording.turns()[0]?.error).toMatchObject({ status: 429, headers: { 'retry-after-ms': '5' } });
      expect(replayed.messages).toEqual(recorded.messages);
      expect(replayed.outcome).toBe(recorded.outcome);
      expect(replayed.usage).toEqual(recorded.usage);
    });
  });
});
