import { z } from 'zod';
import { MAX_TIMER_MS } from '../core/max-timer-ms.js';
import { parseOptions } from '../core/options-check.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerWithin } from '../core/answer-within.js';
import { assertSessionId } from '../persistence/session-id.js';
import { encodeStreamedEvent } from './streamed-event.js';
import { DEFAULT_READ_TIMEOUT_MS, isReadTimeoutMs, readSessionEvents, redisClientOption, type RedisClient } from './event-stream.js';

/** One Server-Sent Event: its id and its data, one `data:` line per line of text. */
export function formatSseMessage(id: string, data: string): string {
  return `id: ${id}\n${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

export interface ServeSessionEventsOptions {
  /** A connection of its own for the blocking reads (see `readSessionEvents`); closed when the client goes. */
  redis: RedisClient;
  /**
   * Checked as every store checks it (`assertSessionId`): an invalid id is refused with a
   * `TypeError` before the response is begun (the reader's connection is closed).
   */
  sessionId: string;
  /** A comment line this often keeps proxies from closing an idle stream: a whole number of ms from 1 to 2^31-1. Default 15,000 ms. */
  heartbeatMs?: number;
  /**
   * The largest event this response sends. A larger one is sent as an `error` event under its id,
   * whose data says how large it was, so a client that reconnects from its `Last-Event-ID` goes past
   * it. Events are written 64 KiB at a time, and reading from Redis pauses while the socket is full
   * (`drain`), so a slow client never holds more than one event unsent. Default 8 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * How long a client may leave the socket full without reading any of it (a hung or suspended
   * tab, a peer that never reads): then it is disconnected and this reader's Redis connection
   * closed, rather than both held for ever; an `EventSource` reconnects from its `Last-Event-ID`.
   * A whole number of ms from 1 to 2^31-1; anything else is a `RangeError` before the response is
   * begun (the reader's connection is closed). Default 60,000 ms.
   */
  stalledReaderMs?: number;
  /**
   * How long past its one-second block a read of Redis may go unanswered: then the client gets an
   * `error` event and the response ends (its `EventSource` reconnects from its `Last-Event-ID`),
   * rather than keep-alives over a connection to Redis that stalled. Default 5,000 ms.
   */
  readTimeoutMs?: number;
}

/**
 * `serveSessionEvents`' options, checked whole: a misspelt one is refused, not ignored. The
 * session id and the limits the function checked before are checked by their own rules, whose
 * messages name them; `heartbeatMs` is a timer's (0 or NaN would write a keep-alive every
 * millisecond, more than 2^31-1 ms too).
 */
const serveOptionsSchema = z.strictObject({
  redis: redisClientOption,
  sessionId: z.unknown(),
  heartbeatMs: timerMsSchema.optional(),
  maxBufferedBytes: z.unknown().optional(),
  stalledReaderMs: z.unknown().optional(),
  readTimeoutMs: z.unknown().optional(),
});

/** Closes the reader's connection: `QUIT`, or at once when Redis does not answer it (a refused `QUIT` means it is closed already). */
async function closeReader(redis: RedisClient, withinMs: number): Promise<void> {
  const unanswered = new Error('QUIT unanswered');
  await answerWithin(redis.quit(), withinMs, () => unanswered).catch((error: unknown) => {
    if (error === unanswered) redis.destroy?.();
  });
}

/** Why `serveSessionEvents` refuses its options, if it does: a `TypeError` for an unknown option, the session id or the heartbeat, a `RangeError` for a limit. */
function optionsRefusal(options: ServeSessionEventsOptions): Error | undefined {
  try {
    parseOptions('serveSessionEvents', serveOptionsSchema, options);
  } catch (error) {
    return error as Error;
  }
  const { sessionId, stalledReaderMs = 60_000, maxBufferedBytes = 8 * 1024 * 1024, readTimeoutMs = DEFAULT_READ_TIMEOUT_MS } = options;
  if (!isReadTimeoutMs(readTimeoutMs)) {
    // readSessionEvents' own rule, checked here too: refused there, it would end a response already begun with an error event.
    return new RangeError(`serveSessionEvents: readTimeoutMs must be a number of ms, 0 or more, not ${String(readTimeoutMs)}`);
  }
  if (!Number.isInteger(stalledReaderMs) || stalledReaderMs < 1 || stalledReaderMs > MAX_TIMER_MS) {
    // A limit a timer cannot keep (NaN, 0, a fraction, more than 2^31-1 ms fires at once) would disconnect every client that fills the socket once.
    return new RangeError(`serveSessionEvents: stalledReaderMs must be a whole number of ms from 1 to ${MAX_TIMER_MS}, not ${String(stalledReaderMs)}`);
  }
  if (!Number.isSafeInteger(maxBufferedBytes) || maxBufferedBytes < 1) {
    // NaN would send every event however large, 0 none.
    return new RangeError(`serveSessionEvents: maxBufferedBytes must be a whole number of bytes, 1 or more, not ${String(maxBufferedBytes)}`);
  }
  try {
    assertSessionId(sessionId);
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

/** The largest part of a Redis stream id, `<ms>-<seq>`, each an unsigned 64-bit number. */
const MAX_ID_PART = 18_446_744_073_709_551_615n;

/** Whether `text` is an id Redis can have given this stream: two unsigned 64-bit numbers. */
function isStreamId(text: string): boolean {
  const match = /^(\d{1,20})-(\d{1,20})$/.exec(text);
  return match !== null && BigInt(match[1]!) <= MAX_ID_PART && BigInt(match[2]!) <= MAX_ID_PART;
}

/** How much of an event is written before waiting for the client to take it: what `stalledReaderMs` measures progress in. */
const WRITE_SLICE_BYTES = 64 * 1024;

/**
 * Serves a session's events as Server-Sent Events from Redis, whichever worker produced them:
 * each event's `id` is its stream entry id, so a browser that reconnects (`EventSource` sends
 * `Last-Event-ID`) continues exactly after the last event it got, and one that reconnects after a
 * worker died gets the new worker's events next. The stream stays open across runs until the
 * client closes it. Each `data` is a `StreamedEvent` (use `keptText` to drop the text of an
 * abandoned attempt).
 *
 * @example
 * ```ts
 * http.createServer(async (request, response) => {
 *   const reader = redis.duplicate();
 *   await reader.connect();
 *   await serveSessionEvents(request, response, { redis: reader, sessionId: 'chat-42' });
 * });
 * ```
 */
export async function serveSessionEvents(request: IncomingMessage, response: ServerResponse, options: ServeSessionEventsOptions): Promise<void> {
  const refusal = optionsRefusal(options);
  if (refusal !== undefined) {
    // Refused before the response is begun, so the caller can still answer it; the reader was handed over, so it is closed (when it is one).
    const reader: Partial<RedisClient> | undefined = (options as Partial<ServeSessionEventsOptions> | undefined)?.redis;
    if (typeof reader?.quit === 'function') await closeReader(reader as RedisClient, isReadTimeoutMs(options.readTimeoutMs) ? options.readTimeoutMs : DEFAULT_READ_TIMEOUT_MS);
    throw refusal;
  }
  const { stalledReaderMs = 60_000, maxBufferedBytes = 8 * 1024 * 1024 } = options;
  const lastEventId = request.headers['last-event-id'];
  if (typeof lastEventId === 'string' && lastEventId !== '' && !isStreamId(lastEventId)) {
    response.writeHead(400, { 'content-type': 'text/plain' }).end(`Last-Event-ID "${lastEventId.slice(0, 40)}" is not an event id of this stream`);
    await closeReader(options.redis, options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
    return;
  }
  const abort = new AbortController();
  request.on('close', () => abort.abort());
  response.on('close', () => abort.abort());
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.write(': connected\n\n');
  // Only an idle stream needs a heartbeat: one with bytes waiting is not idle.
  const heartbeat = setInterval(() => response.writableLength === 0 && response.write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  /** Resolves when the socket has room again, or the client is gone (disconnected when it read nothing for `stalledReaderMs`). */
  const drained = () =>
    new Promise<void>((resolve) => {
      const stalled = setTimeout(() => {
        response.destroy();
        abort.abort();
      }, stalledReaderMs);
      const done = () => {
        clearTimeout(stalled);
        response.off('drain', done);
        abort.signal.removeEventListener('abort', done);
        resolve();
      };
      response.on('drain', done);
      abort.signal.addEventListener('abort', done, { once: true });
    });
  try {
    for await (const { id, entry } of readSessionEvents({
      redis: options.redis,
      sessionId: options.sessionId,
      ...(typeof lastEventId === 'string' && lastEventId !== '' ? { lastEventId } : {}),
      blockMs: 1_000,
      ...(options.readTimeoutMs !== undefined ? { readTimeoutMs: options.readTimeoutMs } : {}),
      signal: abort.signal,
    })) {
      if (abort.signal.aborted) break;
      let message = Buffer.from(formatSseMessage(id, encodeStreamedEvent(entry)), 'utf8');
      if (message.length > maxBufferedBytes) {
        // Sent in its place under its own id: a client that disconnected at it would ask for it again on every reconnect.
        const problem = `event ${id} is ${message.length.toLocaleString('en-US')} bytes, more than maxBufferedBytes (${maxBufferedBytes.toLocaleString('en-US')}): skipped`;
        message = Buffer.from(`event: error\n${formatSseMessage(id, JSON.stringify(problem))}`, 'utf8');
      }
      // In slices, each waited for: a wait for `drain` then measures a slice, so a client that reads a
      // large event slowly but steadily is not taken for one that reads nothing (stalledReaderMs).
      for (let offset = 0; offset < message.length && !abort.signal.aborted; offset += WRITE_SLICE_BYTES) {
        if (!response.write(message.subarray(offset, offset + WRITE_SLICE_BYTES))) await drained();
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) response.write(`event: error\ndata: ${JSON.stringify(error instanceof Error ? error.message : String(error))}\n\n`);
  } finally {
    clearInterval(heartbeat);
    response.end();
    await closeReader(options.redis, options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  }
}
