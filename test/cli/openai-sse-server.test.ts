import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, jsonSchema, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { errorResponse, streamResponse, useOpenAIServers, type OpenAIServer } from '../support/openai-sse-server.js';

const start = useOpenAIServers();

const modelOf = (openAIServer: OpenAIServer) => createOpenAI({ baseURL: openAIServer.baseURL, apiKey: 'test-key' }).chat('gpt-test');

describe('the local OpenAI chat-completions server', () => {
  it('streams text that the real provider parses, with finish reason and usage', async () => {
    const local = await start([streamResponse({ text: 'Hello there, world.', usage: { prompt_tokens: 12, completion_tokens: 4 } })]);
    const result = streamText({ model: modelOf(local), prompt: 'Say hello', maxRetries: 0 });
    expect(await result.text).toBe('Hello there, world.');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBe(12);
    expect((await result.usage).outputTokens).toBe(4);
  });

  it('streams tool calls whose arguments arrive in deltas', async () => {
    const local = await start([
      streamResponse({ text: 'Looking.', toolCalls: [{ id: 'call_a', name: 'lookup', arguments: { city: 'Oslo', units: 'metric' }, argumentChunkSize: 5 }] }),
    ]);
    const lookup = tool({ inputSchema: jsonSchema<{ city: string; units: string }>({ type: 'object', properties: { city: { type: 'string' }, units: { type: 'string' } } }) });
    const result = streamText({ model: modelOf(local), prompt: 'Weather?', tools: { lookup }, maxRetries: 0 });
    expect(await result.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'call_a', toolName: 'lookup', input: { city: 'Oslo', units: 'metric' } })]);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('records each request body and header, so tests can assert what the model was sent', async () => {
    const local = await start([streamResponse({ text: 'ok' })]);
    await streamText({ model: modelOf(local), system: 'Be brief.', prompt: 'Hi', maxRetries: 0 }).text;
    expect(local.requests).toHaveLength(1);
    expect(local.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(local.requests[0]!.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
  });

  it('answers with a scripted HTTP error: status, headers and body reach the provider error', async () => {
    const local = await start([errorResponse(429, { headers: { 'retry-after-ms': '25' }, body: { error: { message: 'Slow down', type: 'rate_limit' } } })]);
    const errors: unknown[] = [];
    const result = streamText({ model: modelOf(local), prompt: 'Hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    await result.consumeStream();
    expect(errors).toHaveLength(1);
    const error = errors[0] as APICallError;
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error.statusCode).toBe(429);
    expect(error.message).toContain('Slow down');
    expect(error.responseHeaders?.['retry-after-ms']).toBe('25');
  });

  it('answers requests in order and says so when it runs out of responses', async () => {
    const local = await start([streamResponse({ text: 'first' })]);
    expect(await streamText({ model: modelOf(local), prompt: 'one', maxRetries: 0 }).text).toBe('first');
    const errors: unknown[] = [];
    await streamText({ model: modelOf(local), prompt: 'two', maxRetries: 0, onError: ({ error }) => void errors.push(error) }).consumeStream();
    expect(String((errors[0] as Error).message)).toContain('no scripted response for request 2');
  });

  it('waits before the headers and between chunks when asked to', async () => {
    const local = await start([streamResponse({ text: ['a', 'b', 'c'] }, { delayMs: 60, chunkDelayMs: 20 })]);
    const started = Date.now();
    expect(await streamText({ model: modelOf(local), prompt: 'slow', maxRetries: 0 }).text).toBe('abc');
    expect(Date.now() - started).toBeGreaterThanOrEqual(60 + 20 * 3);
  });

  it('keeps a hanging stream open until the client aborts, and lets tests wait for a request', async () => {
    const local = await start([streamResponse({ text: ['partial '] }, { end: 'hang' })]);
    const controller = new AbortController();
    const result = streamText({ model: modelOf(local), prompt: 'hang', maxRetries: 0, abortSignal: controller.signal });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const delta of result.textStream) {
        seen.push(delta);
        controller.abort();
      }
    })();
    await local.waitForRequests(1);
    await reading;
    expect(seen).toEqual(['partial ']);
  });

  it('drops the connection for a reset response', async () => {
    const local = await start([{ kind: 'reset' }]);
    const errors: unknown[] = [];
    await streamText({ model: modelOf(local), prompt: 'x', maxRetries: 0, onError: ({ error }) => void errors.push(error) }).consumeStream();
    expect(errors).toHaveLength(1);
  });
});
