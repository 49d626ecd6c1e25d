import { describe, expect, it } from 'vitest';
import { errorStatusOf, jsonErrorAwareFetch } from '../src/ai-sdk/json-error-fetch.js';

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

describe('jsonErrorAwareFetch and a page that does not end', () => {
  it('reads only the start of a 200 HTML answer to a streaming request, and cancels the rest: a body that never ends neither holds the call nor grows the process', async () => {
    let sent = 0;
    let cancelled = false;
    const chunk = new TextEncoder().encode(`<html><title>Portal</title>${' '.repeat(64 * 1024)}`);
    const endless = new ReadableStream<Uint8Array>({
      // 8 MiB, then the connection stays open without a word.
      pull: (controller) => (sent < 8 * 1024 * 1024 ? (controller.enqueue(chunk), void (sent += chunk.length)) : new Promise<void>(() => undefined)),
      cancel: () => void (cancelled = true),
    });
    const base: typeof fetch = async () => new Response(endless, { status: 200, headers: { 'content-type': 'text/html' } });
    const response = await jsonErrorAwareFetch(base)('http://127.0.0.1:1/v1/chat/completions', streamingRequest);
    expect(response.status).toBe(502);
    expect(response.statusText).toContain('It sent: <html><title>Portal</title>');
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  }, 15_000);
});

describe('jsonErrorAwareFetch and an error body that does not end', () => {
  it('reads at most the first MiB of an error response, and says where it cut: the provider reads the body whole into its message', async () => {
    let cancelled = false;
    let sent = 0;
    const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
    // 8 MiB (as a small gzip body unpacks to), then the end: read whole, it would all be the error's message.
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => (sent < 8 * 1024 * 1024 ? (controller.enqueue(chunk), void (sent += chunk.length)) : controller.close()),
      cancel: () => void (cancelled = true),
    });
    const base: typeof fetch = async () => new Response(endless, { status: 500, statusText: 'Internal Server Error', headers: { 'content-type': 'application/json' } });
    const response = await jsonErrorAwareFetch(base)('http://127.0.0.1:1/v1/chat/completions', streamingRequest);
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(body.length).toBeLessThan(1024 * 1024 + 100);
    expect(body.endsWith('\n[… the error body was cut at 1 MiB]')).toBe(true);
    expect(cancelled).toBe(true);
  });

  it('passes a small error response on as it came', async () => {
    const base: typeof fetch = async () => new Response('{"error":{"message":"bad key"}}', { status: 401, headers: { 'content-type': 'application/json' } });
    const response = await jsonErrorAwareFetch(base)('http://127.0.0.1:1/v1/chat/completions', streamingRequest);
    expect(response.status).toBe(401);
    await expect(response.text()).resolves.toBe('{"error":{"message":"bad key"}}');
  });

  it('reads a 200 HTML page answering a Google streaming request (alt=sse in its URL) as the error it is', async () => {
    const response = await jsonErrorAwareFetch(answering('text/html', '<html>captive portal</html>'))('http://127.0.0.1:1/v1beta/models/m:streamGenerateContent?alt=sse', { method: 'POST', body: '{}' });
    expect(response.status).toBe(502);
    expect(response.statusText).toContain('<html>captive portal</html>');
  });
});

describe('errorStatusOf', () => {
  it('reads an error document named as a rate limit or a used-up quota as the 429 it is, not a 502 to retry', () => {
    expect(errorStatusOf('{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}')).toBe(429);
    expect(errorStatusOf('{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}')).toBe(429);
    expect(errorStatusOf('{"error":{"message":"boom","code":"server_error"}}')).toBe(502);
    expect(errorStatusOf('{"error":{"message":"not found","code":404}}')).toBe(404);
  });
});
