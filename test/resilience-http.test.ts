import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';
import { jsonErrorAwareFetch } from 'loopchart/ai-sdk';
import { expectValidHistory } from './support/history.js';
import { errorResponse, streamChunks, useOpenAIServers, streamResponse, type OpenAIServer, type ScriptedHttpResponse } from './support/openai-sse-server.js';
import { recordEvents } from './support/record.js';

const serve = useOpenAIServers();
let server: OpenAIServer | undefined;

/** An agent on `@ai-sdk/openai`'s chat model against the local server, retrying fast. */
async function agentOn(responses: ScriptedHttpResponse[], options: { maxAttempts?: number } = {}) {
  server = await serve(responses);
  const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).chat('gpt-test');
  const agent = createAgent({ model, retry: { baseDelayMs: 1, maxDelayMs: 20, ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) } });
  return { agent, events: recordEvents(agent) };
}

function ofType<T extends AgentEvent['type']>(events: AgentEvent[], type: T): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

/** The chunks of a turn without its finish_reason and usage chunks: a stream cut off mid-answer. */
function cutOff(text: string[]): object[] {
  return streamChunks({ text, finishReason: null, usage: null });
}

describe('resilience over HTTP through @ai-sdk/openai', () => {
  it('a 429 with retry-after-ms: 200 is retried exactly once after the asked wait, then streams the answer', async () => {
    server = await serve([
      errorResponse(429, { headers: { 'retry-after-ms': '200' }, body: { error: { message: 'Rate limit reached', type: 'rate_limit' } } }),
      streamResponse({ text: 'Hello from the second attempt.' }),
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).chat('gpt-test');
    const agent = createAgent({ model, retry: { baseDelayMs: 10_000, maxDelayMs: 30_000 } });
    const events = recordEvents(agent);
    const firstRequest = server.waitForRequests(1).then(() => performance.now());
    const secondRequest = server.waitForRequests(2).then(() => performance.now());

    const result = await agent.run('hi');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('Hello from the second attempt.');
    expect(server.requests).toHaveLength(2);
    const retries = events.filter((event): event is Extract<AgentEvent, { type: 'retry' }> => event.type === 'retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 2, delayMs: 200, error: { kind: 'rate-limit', status: 429, retryAfterMs: 200 } });
    const waited = (await secondRequest) - (await firstRequest);
    expect(waited).toBeGreaterThanOrEqual(195);
    expect(waited).toBeLessThan(2_000);
    await expectValidHistory(result.messages);
  });

  it('a stream that ends cleanly without a finish_reason is a failed attempt: retried, and its cut-off text is in neither the result nor the history', async () => {
    const { agent, events } = await agentOn([
      { kind: 'stream', chunks: cutOff(['Hello ', 'wor']), end: 'end' },
      streamResponse({ text: 'Hello world.' }),
    ]);

    const result = await agent.run('hi');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('Hello world.');
    expect(server!.requests).toHaveLength(2);
    expect(ofType(events, 'retry')).toEqual([expect.objectContaining({ step: 1, attempt: 2, error: expect.objectContaining({ kind: 'stream' }) })]);
    expect(JSON.stringify(result.messages)).not.toContain('Hello wor"');
    expect(result.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('a stream cut off on every attempt ends failed with kind stream after maxAttempts requests, keeping nothing of the attempts', async () => {
    const { agent } = await agentOn(
      [1, 2].map((): ScriptedHttpResponse => ({ kind: 'stream', chunks: cutOff(['Hello ', 'wor']), end: 'end' })),
      { maxAttempts: 2 },
    );

    const result = await agent.run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'stream' });
    expect(result.text).toBe('');
    expect(server!.requests).toHaveLength(2);
    expect(result.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('an HTTP 200 whose body is a JSON error document is a failed attempt and is retried', async () => {
    const { agent, events } = await agentOn([
      errorResponse(200, { body: { error: { message: 'upstream model crashed', type: 'server_error' } } }),
      streamResponse({ text: 'Recovered.' }),
    ]);

    const result = await agent.run('hi');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('Recovered.');
    expect(ofType(events, 'retry')).toHaveLength(1);
  });

  it('with jsonErrorAwareFetch, a 200 JSON error document keeps the server’s message and status in result.error', async () => {
    server = await serve([
      errorResponse(200, { body: { error: { message: 'model qwen2.5 not found on this server', code: 404 } } }),
      streamResponse({ text: 'never sent' }),
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key', fetch: jsonErrorAwareFetch() }).chat('gpt-test');
    const result = await createAgent({ model, retry: { baseDelayMs: 1, maxDelayMs: 5 } }).run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'invalid-request', status: 404, message: 'model qwen2.5 not found on this server' });
    expect(server.requests).toHaveLength(1);
  });

  it('with jsonErrorAwareFetch, a 200 JSON error document without a status is a retried server error carrying its message', async () => {
    server = await serve([
      errorResponse(200, { body: { error: { message: 'upstream crashed' } } }),
      errorResponse(200, { body: { error: { message: 'upstream crashed' } } }),
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key', fetch: jsonErrorAwareFetch() }).chat('gpt-test');
    const result = await createAgent({ model, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } }).run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'server', status: 502, message: 'upstream crashed' });
    expect(server.requests).toHaveLength(2);
  });

  it('with jsonErrorAwareFetch, a 200 HTML page for a streaming request is a server error that names the content type and what the page says', async () => {
    const page = { text: '<html><head><title>Sign in to the guest Wi-Fi</title></head><body>…</body></html>', contentType: 'text/html; charset=utf-8' };
    server = await serve([errorResponse(200, { rawBody: page })]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key', fetch: jsonErrorAwareFetch() }).chat('gpt-test');
    const result = await createAgent({ model, retry: { maxAttempts: 1 } }).run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'server', status: 502 });
    expect(result.error?.message).toMatch(/^The server answered a streaming request with text\/html, not an event stream \(text\/event-stream\)/);
    expect(result.error?.message).toContain('<title>Sign in to the guest Wi-Fi</title>');
  });

  it('with jsonErrorAwareFetch, a 200 JSON document that is no error (a server that does not stream) is a server error that says so', async () => {
    server = await serve([errorResponse(200, { body: { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'Hi' } }] } })]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key', fetch: jsonErrorAwareFetch() }).chat('gpt-test');
    const result = await createAgent({ model, retry: { maxAttempts: 1 } }).run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'server', status: 502 });
    expect(result.error?.message).toMatch(/^The server answered a streaming request with application\/json, not an event stream \(text\/event-stream\).*"object":"chat.completion"/);
  });

  it('an error frame with insufficient_quota (isRetryable false) is not retried and keeps its status', async () => {
    const { agent, events } = await agentOn([
      { kind: 'stream', chunks: [{ error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' } }] },
      streamResponse({ text: 'never sent' }),
    ]);

    const result = await agent.run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'rate-limit', status: 429, retryable: false, message: 'You exceeded your current quota.' });
    expect(server!.requests).toHaveLength(1);
    expect(ofType(events, 'retry')).toHaveLength(0);
  });

  it('a mid-stream error object with code 400 (as vLLM sends it) is an invalid-request, not retried, with its status', async () => {
    const { agent } = await agentOn([
      { kind: 'stream', chunks: [...cutOff(['Partial ']), { error: { message: 'maximum tokens exceeded for this request', code: 400, object: 'error' } }] },
      streamResponse({ text: 'never sent' }),
    ]);

    const result = await agent.run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'invalid-request', status: 400 });
    expect(server!.requests).toHaveLength(1);
    expect(result.text).toBe('');
  });

  it('a raw finish_reason "error" (OpenRouter) is a failure, not a completed run', async () => {
    const { agent } = await agentOn(
      [1, 2].map((): ScriptedHttpResponse => ({
        kind: 'stream',
        chunks: [...cutOff(['Truncated ans']), { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta: {}, finish_reason: 'error' }] }],
      })),
      { maxAttempts: 2 },
    );

    const result = await agent.run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'stream' });
    expect(result.text).toBe('');
  });

  it('a connection that breaks off mid-body is a network error whose message says what broke, not a bare "Failed to process successful response"', async () => {
    const chunks = streamChunks({ text: ['Hello ', 'wor'], finishReason: null, usage: null });
    const { agent } = await agentOn([{ kind: 'stream', chunks: [...chunks, '{"id":"cut mid-li'], end: 'reset' }], { maxAttempts: 1 });

    const result = await agent.run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'network', message: expect.stringMatching(/^Failed to process successful response: terminated \(other side closed\)$/) });
  });

  it('one malformed SSE line does not sink a step that goes on to finish: reported as a stream-warning, not retried', async () => {
    const chunks = streamChunks({ text: ['All ', 'good.'] });
    const { agent, events } = await agentOn([{ kind: 'stream', chunks: [chunks[0]!, '{"not json', ...chunks.slice(1)] }]);

    const result = await agent.run('hi');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('All good.');
    expect(server!.requests).toHaveLength(1);
    expect(ofType(events, 'retry')).toHaveLength(0);
    expect(ofType(events, 'stream-warning')).toEqual([expect.objectContaining({ step: 1, attempt: 1 })]);
    expect(result.trace?.steps[0]?.streamWarnings).toHaveLength(1);
  });
});
