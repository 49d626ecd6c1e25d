import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';
import { expectValidHistory } from './support/history.js';
import { errorResponse, startOpenAIServer, streamResponse, type OpenAIServer } from './support/openai-sse-server.js';
import { recordEvents } from './support/record.js';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('resilience over HTTP through @ai-sdk/openai', () => {
  it('a 429 with retry-after-ms: 200 is retried exactly once after the asked wait, then streams the answer', async () => {
    server = await startOpenAIServer([
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
});
