/**
 * boundedEventStreamFetch: an event stream that never ends an event (one endless
 * line, or data lines without the blank line that ends an event) is cut off with
 * a clear error instead of growing in memory until the process dies.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { boundedEventStreamFetch } from '../src/ai-sdk/bounded-event-stream-fetch.js';
import { streamChunks, streamResponse, useOpenAIServers } from './support/openai-sse-server.js';

const serve = useOpenAIServers();

/** A fetch that answers with these body pieces, as `content-type`. */
function answering(pieces: string[], contentType = 'text/event-stream'): typeof fetch {
  return async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': contentType } });
  };
}

async function read(response: Response): Promise<string> {
  return await response.text();
}

describe('boundedEventStreamFetch', () => {
  it('passes an event stream whose events fit through unchanged, with LF, CRLF and CR line ends, split anywhere', async () => {
    const pieces = ['data: {"a":1}\n\n', 'data: {"b"', ':2}\r\n\r', '\n: ping\r\r', 'data: ', 'x'.repeat(90), '\n\n'];
    const fetch = boundedEventStreamFetch({ fetch: answering(pieces), maxEventBytes: 100 });

    expect(await read(await fetch('http://127.0.0.1/'))).toBe(pieces.join(''));
  });

  it('cuts off one line longer than maxEventBytes with an error that says what the server sent and the limit', async () => {
    const fetch = boundedEventStreamFetch({ fetch: answering(['data: {"a":1}\n\n', 'data: "', 'y'.repeat(150)]), maxEventBytes: 100 });

    await expect(read(await fetch('http://127.0.0.1/'))).rejects.toThrow(
      'The server sent an event of more than 100 bytes (an event ends at a blank line): the stream is cut off there. Raise maxEventBytes if the provider sends events that large',
    );
  });

  it('cuts off data lines that never end their event with a blank line', async () => {
    const fetch = boundedEventStreamFetch({ fetch: answering(Array.from({ length: 20 }, () => 'data: 0123456789\r\n')), maxEventBytes: 100 });

    await expect(read(await fetch('http://127.0.0.1/'))).rejects.toThrow('more than 100 bytes');
  });

  it('leaves a response that is not an event stream alone', async () => {
    const fetch = boundedEventStreamFetch({ fetch: answering(['{"x":"' + 'z'.repeat(500) + '"}'], 'application/json'), maxEventBytes: 100 });

    expect(await read(await fetch('http://127.0.0.1/'))).toHaveLength(508);
  });

  it('bounds an event stream whatever the case of its type, and any successful answer to a streaming request whatever its type', async () => {
    const endless = ['data: "', 'y'.repeat(150)];
    const streaming = { method: 'POST', body: '{"model":"m","stream":true}' };
    for (const contentType of ['TEXT/EVENT-STREAM', 'text/plain', 'application/octet-stream', '']) {
      const fetch = boundedEventStreamFetch({ fetch: answering(endless, contentType), maxEventBytes: 100 });
      await expect(read(await fetch('http://127.0.0.1/', streaming)), contentType).rejects.toThrow('more than 100 bytes');
    }
    // Google asks for its stream in the URL.
    const google = boundedEventStreamFetch({ fetch: answering(endless, 'text/plain'), maxEventBytes: 100 });
    await expect(read(await google('http://127.0.0.1/v1beta/models/m:streamGenerateContent?alt=sse', { method: 'POST', body: '{}' }))).rejects.toThrow('more than 100 bytes');
  });

  it('refuses a maxEventBytes that is not a positive integer', () => {
    expect(() => boundedEventStreamFetch({ maxEventBytes: 0 })).toThrow('maxEventBytes must be a positive integer, got 0');
  });

  it('through @ai-sdk/openai, a run whose provider streams an endless line fails, not retried, with the limit in its message', async () => {
    const first = streamChunks({ text: 'Hel', finishReason: null, usage: null });
    const server = await serve([{ kind: 'stream', chunks: [...first, `"${'w'.repeat(300_000)}`], end: 'hang' }, streamResponse({ text: 'never asked' })]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key', fetch: boundedEventStreamFetch({ maxEventBytes: 100_000 }) }).chat('gpt-test');

    const result = await createAgent({ model, retry: { baseDelayMs: 1, maxDelayMs: 5 } }).run('hi');

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'unknown', retryable: false });
    expect(result.error?.message).toContain('The server sent an event of more than 100000 bytes');
    expect(server.requests).toHaveLength(1);
  });
});
