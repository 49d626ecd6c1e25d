import { jsonSchema, tool, ToolLoopAgent, type ModelMessage, type ToolSet } from 'ai';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';

const usage = { inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: undefined, reasoning: undefined } };
const toolStep: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-input-start', id: 'c1', toolName: 'add' },
  { type: 'tool-input-delta', id: 'c1', delta: '{"a":2,' },
  { type: 'tool-input-delta', id: 'c1', delta: '"b":3}' },
  { type: 'tool-input-end', id: 'c1' },
  { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
];
const answerStep: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'five' },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

/** A model that streams the tool call's input piece by piece, then answers. */
function streamingModel() {
  let call = 0;
  return new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(call++ === 0 ? toolStep : answerStep) }) });
}

type Logged = { callback: string; toolCallId: string; inputTextDelta?: string; input?: unknown; messages: ModelMessage[]; signal: boolean };

/** An `add` tool whose input callbacks log what they get, and that throws from `failIn`. */
function loggingTools(failIn?: string) {
  const log: Array<Logged | 'execute'> = [];
  const failure = new Error(`boom in ${failIn}`);
  const callback = (name: string) => (options: { toolCallId: string; inputTextDelta?: string; input?: unknown; messages: ModelMessage[]; abortSignal?: AbortSignal }) => {
    log.push({
      callback: name,
      toolCallId: options.toolCallId,
      ...('inputTextDelta' in options ? { inputTextDelta: options.inputTextDelta } : {}),
      ...('input' in options ? { input: options.input } : {}),
      messages: options.messages,
      signal: options.abortSignal instanceof AbortSignal,
    });
    if (name === failIn) throw failure;
  };
  const tools: ToolSet = {
    add: tool({
      inputSchema: jsonSchema<{ a: number; b: number }>({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }),
      execute: async ({ a, b }) => (log.push('execute'), a + b),
      onInputStart: callback('onInputStart'),
      onInputDelta: callback('onInputDelta'),
      onInputAvailable: callback('onInputAvailable'),
    }),
  };
  return { log, tools, failure };
}

const names = (log: Array<Logged | 'execute'>) => log.map((entry) => (entry === 'execute' ? entry : entry.callback));

describe("a tool's input callbacks", () => {
  it('are called as ToolLoopAgent.stream() calls them: in order, with the call id, each delta, the input and the messages sent', async () => {
    const reference = loggingTools();
    const sdk = await new ToolLoopAgent({ model: streamingModel(), tools: reference.tools }).stream({ prompt: 'What is 2 + 3?' });
    await sdk.consumeStream();
    await sdk.text;

    const ours = loggingTools();
    const result = await createAgent({ model: streamingModel(), tools: ours.tools }).run('What is 2 + 3?');
    expect(result.outcome).toBe('completed');

    expect(names(ours.log)).toEqual(['onInputStart', 'onInputDelta', 'onInputDelta', 'onInputAvailable', 'execute']);
    expect(names(ours.log)).toEqual(names(reference.log));
    const strip = (log: Array<Logged | 'execute'>) => log.filter((entry) => entry !== 'execute').map(({ signal: _signal, ...entry }) => entry);
    expect(strip(ours.log)).toEqual(strip(reference.log));
    expect(strip(ours.log)[1]).toMatchObject({ toolCallId: 'c1', inputTextDelta: '{"a":2,' });
    expect(strip(ours.log)[3]).toMatchObject({ toolCallId: 'c1', input: { a: 2, b: 3 } });
    // loopchart always has the call's signal to give (ToolLoopAgent gives the caller's, here none).
    expect(ours.log.every((entry) => entry === 'execute' || entry.signal)).toBe(true);
  });

  it.each(['onInputStart', 'onInputDelta', 'onInputAvailable'])('a throw from %s fails the call with that error, as with ToolLoopAgent, and the tool never runs', async (failIn) => {
    const reference = loggingTools(failIn);
    const sdk = await new ToolLoopAgent({ model: streamingModel(), tools: reference.tools }).stream({ prompt: 'What is 2 + 3?' });
    await expect((async () => {
      for await (const _part of sdk.fullStream);
    })()).rejects.toBe(reference.failure);

    const ours = loggingTools(failIn);
    await expect(toAISDKAgent(createAgent({ model: streamingModel(), tools: ours.tools })).generate({ prompt: 'What is 2 + 3?' })).rejects.toBe(ours.failure);
    expect(names(ours.log)).not.toContain('execute');

    const direct = loggingTools(failIn);
    const result = await createAgent({ model: streamingModel(), tools: direct.tools }).run('What is 2 + 3?');
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toBe(`The ${failIn} callback of tool "add" failed, so the model call failed: boom in ${failIn}`);
    expect(result.stepCount).toBe(1);
  });

  it('a rejected promise fails the call the same way', async () => {
    const tools: ToolSet = {
      add: tool({ inputSchema: jsonSchema<{ a: number }>({ type: 'object' }), execute: async () => 1, onInputStart: async () => Promise.reject(new Error('later')) }),
    };
    const result = await createAgent({ model: streamingModel(), tools }).run('go');
    expect(result).toMatchObject({ outcome: 'failed', error: { message: expect.stringMatching(/onInputStart callback of tool "add" failed.*later/) } });
  });
});
