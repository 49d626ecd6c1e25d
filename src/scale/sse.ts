/**
 * A session's events as Server-Sent Events, served by any web node from the session's Redis
 * Stream (see `publishAgentEvents`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStreamEntryId, readAgentEvents, type EventStreamReadSource } from './redis-event-stream.js';

export interface ServeAgentEventStreamOptions {
  /** A client to duplicate: each response reads with a blocking connection of its own. */
  redis: EventStreamReadSource;
  /** The session's stream, from `streamKey(sessionId)`. */
  key: string;
  /** A comment line this often keeps proxies from closing a quiet stream. Default 15,000 ms. */
  heartbeatMs?: number;
  /** How long one `XREAD BLOCK` waits before it is issued again. Default 10,000 ms. */
  blockMs?: number;
  /** Told why a stream ended early (Redis failed); the client reconnects with its `Last-Event-ID` either way. */
  onError?: (error: unknown) => void;
}

/**
 * Serves a session's events as `text/event-stream`: each entry as an event whose `id:` is its
 * Redis entry id and whose `data:` is the `StreamedEvent` as JSON. A browser's `EventSource`
 * sends the last id back as `Last-Event-ID` when it reconnects, and gets the entries after it,
 * whichever node it reaches. The stream is the session's, not a run's: it stays open across runs
 * (a `run-end` does not end it) until the client goes away, which stops the read and closes its
 * Redis connection. A failing read ends the response (reported to `onError`) and the client
 * reconnects. Resolves when the response is over; never rejects. A `Last-Event-ID` that is not a
 * stream entry id gets a 400.
 *
 * @example
 * ```ts
 * const redis = await createClient({ url }).connect();
 * http.createServer((request, response) => {
 *   const sessionId = new URL(request.url!, 'http://localhost').searchParams.get('session')!;
 *   void serveAgentEventStream(request, response, { redis, key: streamKey(sessionId) });
 * }).listen(8080);
 * ```
 */
export async function serveAgentEventStream(request: IncomingMessage, response: ServerResponse, options: ServeAgentEventStreamOptions): Promise<void> {
  const { redis, key, heartbeatMs = 15_000, blockMs, onError } = options;
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 1) throw new RangeError(`heartbeatMs must be a positive integer, got ${heartbeatMs}`);
  const lastEventId = singleHeader(request.headers['last-event-id']);
  if (lastEventId !== undefined && !isStreamEntryId(lastEventId)) {
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(`Last-Event-ID "${lastEventId}" is not an id this stream sent\n`);
    return;
  }

  const clientGone = new AbortController();
  // The response's 'close', not the request's: a request closes once its (empty) body is read.
  response.once('close', () => clientGone.abort());
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
  const heartbeat = setInterval(() => {
    if (!response.writableNeedDrain) response.write(': heartbeat\n\n');
  }, heartbeatMs);
  try {
    const entries = readAgentEvents({ redis, key, signal: clientGone.signal, ...(lastEventId !== undefined ? { lastEventId } : {}), ...(blockMs !== undefined ? { blockMs } : {}) });
    for await (const { id, entry } of entries) {
      if (clientGone.signal.aborted) break;
      if (!response.write(formatSseMessage(id, JSON.stringify(entry)))) await drainedOrClosed(response);
    }
  } catch (error) {
    onError?.(error);
  } finally {
    clearInterval(heartbeat);
    if (!response.writableEnded) response.end();
  }
}

/**
 * One Server-Sent Event: an `id:` line, one `data:` line per line of `data` (a client joins them
 * back with newlines), and the blank line that ends the event.
 *
 * @throws TypeError when `id` holds a line break or NUL, which the format cannot carry.
 * @example
 * ```ts
 * formatSseMessage('1700000000000-0', 'first\nsecond');
 * // 'id: 1700000000000-0\ndata: first\ndata: second\n\n'
 * ```
 */
export function formatSseMessage(id: string, data: string): string {
  if (/[\r\n\0]/.test(id)) throw new TypeError(`an event id cannot hold a line break or NUL: ${JSON.stringify(id)}`);
  const dataLines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return `id: ${id}\n${dataLines.join('')}\n`;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}
