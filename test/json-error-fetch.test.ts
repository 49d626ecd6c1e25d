import { describe, expect, it } from 'vitest';
import { jsonErrorAwareFetch } from '../src/ai-sdk/json-error-fetch.js';

/** A base fetch that answers every request with `body` as `contentType`, status 200. */
const answering = (contentType: string, body: string): typeof fetch => async () => new Response(body, { status: 200, headers: { 'content-type': contentType } });
const streamingRequest = { method: 'POST', body: '{"model":"m","stream":true}' };

describe('jsonErrorAwareFetch and streams of JSON lines', () => {
  it.each(['application/x-ndjson', 'application/jsonl', 'application/json-seq'])(
    'passes a %s stream (Ollama streams its chat as NDJSON) on as it came, unread',
    async (contentType) => {
      const lines = '{"message":{"content":"hi"},"done":false}\n{"done":true}\n';
      const response = await jsonErrorAwareFetch(answering(contentType, lines))('http://127.0.0.1:1/api/chat', streamingRequest);
      expect(response.status).toBe(200);
      await expect(response.text()).resolves.toBe(lines);
    },
  );

  it('still reads a +json error document (application/problem+json) in a 200 as the error it is', async () => {
    const problem = '{"error":{"message":"model not found","code":404}}';
    const response = await jsonErrorAwareFetch(answering('application/problem+json', problem))('http://127.0.0.1:1/v1/chat/completions', streamingRequest);
    expect(response.status).toBe(404);
  });
});
