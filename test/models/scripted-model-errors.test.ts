import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { experimental_streamLanguageModelCall, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../src/test/index.js';

const userPrompt: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
};

async function partsOf(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const rateLimited = {
  error: {
    status: 429,
    message: 'Rate limit reached',
    headers: { 'Retry-After-Ms': '200' },
    body: '{"error":{"message":"Rate limit reached"}}',
  },
};

describe('scripted HTTP errors', () => {
  it('rejects the call with a retryable APICallError carrying the status, headers and body', async () => {
    const model = scriptedModel([rateLimited]);

    const failure: unknown = await model.doStream(userPrompt).catch((error: unknown) => error);

    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      message: 'Rate limit reached',
      url: 'scripted://model',
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { 'retry-after-ms': '200' },
      responseBody: '{"error":{"message":"Rate limit reached"}}',
      data: { error: { message: 'Rate limit reached' } },
      requestBodyValues: expect.objectContaining({ prompt: userPrompt.prompt }),
    });
  });

  it('surfaces a 429 through streamText as an APICallError', async () => {
    const model = scriptedModel([rateLimited]);
    const errors: unknown[] = [];

    const result = streamText({ model, prompt: 'go', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    await result.consumeStream();

    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0])).toBe(true);
    expect(errors[0]).toMatchObject({
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { 'retry-after-ms': '200' },
    });
  });

  it('lets streamText retry a 429 after the retry-after-ms it advertises', async () => {
    const model = scriptedModel([rateLimited, { text: 'finally' }]);
    const startedAt = performance.now();

    const result = streamText({ model, prompt: 'go', maxRetries: 1 });

    expect(await result.text).toBe('finally');
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(model.calls).toHaveLength(2);
  });

  it.each([
    [400, false],
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
  ])('marks status %i as retryable: %s', async (status, retryable) => {
    const model = scriptedModel([{ error: { status, message: 'failed' } }]);

    const failure: unknown = await model.doStream(userPrompt).catch((error: unknown) => error);

    expect(failure).toMatchObject({ statusCode: status, isRetryable: retryable });
  });

  it('rejects with a fetch failure caused by a connection reset when the error has no status', async () => {
    const model = scriptedModel([{ error: { message: 'socket hang up' } }]);

    const failure: unknown = await model.doStream(userPrompt).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({
      message: 'fetch failed',
      cause: { message: 'socket hang up', code: 'ECONNRESET' },
    });
  });

  it('rejects doGenerate with the same error', async () => {
    const model = scriptedModel([rateLimited]);

    await expect(model.doGenerate(userPrompt)).rejects.toMatchObject({ statusCode: 429 });
  });
});

describe('scripted mid-stream errors', () => {
  it('sends an error part after the given number of text deltas and closes without finishing', async () => {
    const model = scriptedModel([
      { text: ['one', ' two', ' three'], error: { status: 500, message: 'overloaded', after: 2 } },
    ]);

    const { stream } = await model.doStream(userPrompt);
    const parts = await partsOf(stream);

    expect(parts.map((part) => part.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-delta',
      'error',
    ]);
    const errorPart = parts.at(-1);
    expect(errorPart?.type === 'error' && APICallError.isInstance(errorPart.error)).toBe(true);
    expect(errorPart).toMatchObject({ error: { statusCode: 500, message: 'overloaded', isRetryable: true } });
  });

  it('shows the partial text and the error through experimental_streamLanguageModelCall', async () => {
    const model = scriptedModel([
      { text: ['one', ' two', ' three'], error: { status: 500, message: 'overloaded', after: 2 } },
    ]);

    const { stream } = await experimental_streamLanguageModelCall({ model, prompt: 'go' });
    const parts = [];
    for await (const part of stream) parts.push(part);

    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.text)).toEqual(['one', ' two']);
    expect(parts.find((part) => part.type === 'error')).toMatchObject({ error: { statusCode: 500 } });
  });

  it('sends the error part at the end of the text when the text has fewer deltas', async () => {
    const model = scriptedModel([{ text: ['only'], error: { status: 502, message: 'bad gateway', after: 5 } }]);

    const { stream } = await model.doStream(userPrompt);
    const types = (await partsOf(stream)).map((part) => part.type);

    expect(types.slice(-2)).toEqual(['text-delta', 'error']);
  });

  it('errors the stream like a reset connection when a mid-stream error has no status', async () => {
    const model = scriptedModel([{ text: ['a', 'b'], error: { message: 'reset', after: 1 } }]);

    const { stream } = await model.doStream(userPrompt);

    await expect(partsOf(stream)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'terminated',
      cause: { code: 'ECONNRESET' },
    });
  });
});

describe('a run that asks for more turns than the script has', () => {
  it.each([
    [1, 'the script has 1 turn; the run asked for a 2nd'],
    [3, 'the script has 3 turns; the run asked for a 4th'],
    [11, 'the script has 11 turns; the run asked for a 12th'],
  ])('with %i turns rejects with "%s"', async (turnCount, message) => {
    const model = scriptedModel(Array.from({ length: turnCount }, () => ({ text: 'ok' })));
    for (let turn = 0; turn < turnCount; turn++) await model.doStream(userPrompt);

    await expect(model.doStream(userPrompt)).rejects.toThrow(new Error(message));
  });

  it.each([
    [0, 'the script has 0 turns; the run asked for a 1st'],
    [2, 'the script has 2 turns; the run asked for a 3rd'],
    [7, 'the script has 7 turns; the run asked for an 8th'],
    [10, 'the script has 10 turns; the run asked for an 11th'],
    [12, 'the script has 12 turns; the run asked for a 13th'],
    [20, 'the script has 20 turns; the run asked for a 21st'],
    [21, 'the script has 21 turns; the run asked for a 22nd'],
    [110, 'the script has 110 turns; the run asked for a 111th'],
  ])('names the ordinal correctly after %i turns', async (turnCount, message) => {
    const model = scriptedModel(Array.from({ length: turnCount }, () => ({})));
    for (let turn = 0; turn < turnCount; turn++) await model.doGenerate(userPrompt);

    await expect(model.doGenerate(userPrompt)).rejects.toThrow(new Error(message));
  });
});

describe('malformed tool input', () => {
  it('is sent verbatim in the tool call and its input deltas', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'c1', name: 'readFile', input: '{"path": "a' }] }]);

    const { stream } = await model.doStream(userPrompt);
    const parts = await partsOf(stream);

    expect(parts).toContainEqual({ type: 'tool-input-delta', id: 'c1', delta: '{"path": "a' });
    expect(parts).toContainEqual({ type: 'tool-call', toolCallId: 'c1', toolName: 'readFile', input: '{"path": "a' });
  });

  it('reaches streamText as an invalid tool call with the raw input', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'c1', name: 'readFile', input: '{"path": ' }] }]);
    const tools = { readFile: tool({ inputSchema: z.object({ path: z.string() }) }) };

    const result = streamText({ model, tools, prompt: 'go', maxRetries: 0 });
    const toolErrors = [];
    for await (const part of result.fullStream) if (part.type === 'tool-error') toolErrors.push(part);

    expect(toolErrors).toMatchObject([{ toolCallId: 'c1', input: '{"path": ' }]);
  });
});
