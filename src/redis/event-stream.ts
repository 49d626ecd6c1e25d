import { z } from 'zod';
import { answerWithin } from '../core/answer-within.js';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { errorMessage } from '../core/error-message.js';
import { reportToAppOrWarnOnce } from '../core/warn-once.js';
import { EVENT_NOT_PUBLISHED_WARNING } from '../scale/event-publishing.js';
import type { AgentEvent } from '../core/events.js';
import { assertSessionId } from '../persistence/session-id.js';
import { refuseMovedRedactOption } from '../secrets/moved-secrets-option.js';
import { FENCED_APPEND_SCRIPT } from './fenced-append.js';
import { decodeStreamedEvent, EpochFilter, encodeStreamedEvent, type StreamedEvent } from './streamed-event.js';

/** What loopchart uses of a connected client of the `redis` package (`createClient({ url })`). */
export interface RedisClient {
  xAdd(key: string, id: string, message: Record<string, string>, options?: { TRIM?: { strategy: 'MAXLEN'; strategyModifier?: '~'; threshold: number } }): Promise<unknown>;
  expire(key: string, seconds: number): Promise<unknown>;
  xRead(streams: { key: string; id: string }, options?: { BLOCK?: number; COUNT?: number }): Promise<unknown>;
  /**
   * Runs a script on the server (`EVAL`): the publisher appends each event with a fence that
   * refuses an epoch below the stream's last (`FENCED_APPEND_SCRIPT`). Without it, entries are
   * appended unfenced and only readers drop stale ones.
   */
  eval?(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** Reads entries by id (`XRANGE`): how a reader that continues after `Last-Event-ID` learns the epoch it had seen. */
  xRange?(key: string, start: string, end: string, options?: { COUNT?: number }): Promise<unknown>;
  quit(): Promise<unknown>;
  /** Closes the connection at once, failing what it still waits for (`redis` 5 and later): for a connection that does not answer `QUIT`. */
  destroy?(): void;
  /**
   * The `redis` package reports a broken connection as an `'error'` event (it reconnects by
   * itself), and an event nobody listens to ends the process: loopchart listens on every client
   * it is given.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A client option: an object (what loopchart calls on it is typed by `RedisClient`). */
export const redisClientOption = z.custom<RedisClient>((value) => typeof value === 'object' && value !== null, { message: 'expected a connected client of the redis package' });

const listened = new WeakSet<object>();

/** The `code` of the process warning of a publisher without `onError` whose event did not reach Redis: the same as an app's own `onEvent`'s. */
export { EVENT_NOT_PUBLISHED_WARNING };
/** The `code` of the process warning of a publisher without `onError` whose connection reported an error. */
export const REDIS_CONNECTION_WARNING = 'LOOPCHART_REDIS_CONNECTION_ERROR';

/** A count Redis takes as an integer argument: a whole number, 1 or more. */
function isPositiveWholeNumber(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1;
}

/**
 * Listens for a client's `'error'` events (a cut connection, which the client recovers from) so
 * they never end the process; each goes to `onError` (the first listener given for a client).
 */
export function tolerateRedisErrors(redis: RedisClient, onError: (error: unknown) => void): void {
  if (listened.has(redis) || typeof redis.on !== 'function') return;
  listened.add(redis);
  redis.on('error', (error) => onError(error));
}

/**
 * The Redis Stream of a session's events. One stream per session, not per run: a browser opens
 * it before it knows the next run's id and keeps one `Last-Event-ID` across runs; every entry
 * names its run.
 */
export function sessionEventsKey(sessionId: string): string {
  return `loopchart:events:${sessionId}`;
}

export interface EventPublisherOptions {
  redis: RedisClient;
  /** Entries kept per session stream (approximately: Redis trims whole nodes). A whole number, 1 or more. Default 10,000. */
  maxLength?: number;
  /** The stream expires this long after its last entry: a whole number of seconds, 1 or more. Default one day. */
  ttlSeconds?: number;
  /** Which events to publish. Default: all but `trace` (a whole run's trace, which `run-end` carries too). */
  include?: (event: AgentEvent) => boolean;
  /**
   * A write that failed (Redis down) or was not answered in time, and every error the connection
   * reports: the run goes on; the client misses those events. Without it, the first failed write
   * and the first connection error of this publisher are each a process warning (`LoopchartWarning`,
   * codes `LOOPCHART_EVENT_NOT_PUBLISHED` and `LOOPCHART_REDIS_CONNECTION_ERROR`), and later ones
   * are not told. A throw of `onError` is swallowed: it stops no later event.
   */
  onError?: (error: unknown) => void;
  /**
   * How long an event may take to be in Redis, counted from its `publish`: an entry Redis has not
   * confirmed by then counts as failed (`onError`), so a connection that stops answering (no
   * reset, no error) holds neither the later events nor a turn that waits for them.
   * @default 5000
   */
  writeTimeoutMs?: number;
}

/** `redisEventPublisher`'s options, checked whole: a misspelt one is refused, not ignored. The limits are checked by their own rules, whose messages name them. */
const eventPublisherOptionsSchema = z.strictObject({
  redis: redisClientOption,
  maxLength: z.unknown().optional(),
  ttlSeconds: z.unknown().optional(),
  include: functionOption<(event: AgentEvent) => boolean>().optional(),
  onError: functionOption<(error: unknown) => void>().optional(),
  writeTimeoutMs: z.unknown().optional(),
});

export interface EventPublisher {
  /**
   * Publishes one event of a session, in call order; resolves once it is in Redis (never rejects:
   * a failure goes to `onError`). Fits `registerSessionWorkflows({ onEvent })`, which then waits for
   * the events of a turn's step before the step counts as done.
   */
  publish: (sessionId: string, event: AgentEvent, lease: { epoch: number }) => Promise<void>;
  /** Resolves once everything published so far is in Redis (or failed). */
  flushed: () => Promise<void>;
}

/**
 * Publishes agent events to a Redis Stream per session, for web nodes to serve to browsers
 * (`serveSessionEvents`). Writes are chained, so entries keep the order of the events; each carries
 * the lease epoch of the worker that ran the step, and an entry whose epoch is below the stream's
 * last is refused on the server (a worker that lost its lease and publishes late), so the epochs
 * in a stream never go down.
 *
 * @example
 * ```ts
 * const events = redisEventPublisher({ redis });
 * registerSessionWorkflows({ store, agent, onEvent: events.publish });
 * ```
 */
export function redisEventPublisher(options: EventPublisherOptions): EventPublisher {
  // Secrets are the agent's (`createAgent({ secrets })`): its events reach the stream redacted.
  refuseMovedRedactOption(options, 'redisEventPublisher');
  parseOptions('redisEventPublisher', eventPublisherOptionsSchema, options);
  const maxLength = options.maxLength ?? 10_000;
  const ttlSeconds = options.ttlSeconds ?? 86_400;
  const include = options.include ?? ((event: AgentEvent) => event.type !== 'trace');
  const writeTimeoutMs = options.writeTimeoutMs ?? 5_000;
  if (!Number.isFinite(writeTimeoutMs) || writeTimeoutMs <= 0) throw new RangeError(`redisEventPublisher: writeTimeoutMs must be a positive number of ms, not ${writeTimeoutMs}`);
  // Both go to Redis as they are: EXPIRE 0 deletes the stream after every write, and a fraction fails every write ("not an integer").
  if (!isPositiveWholeNumber(maxLength)) throw new RangeError(`redisEventPublisher: maxLength must be a whole number of entries, 1 or more, not ${maxLength}`);
  if (!isPositiveWholeNumber(ttlSeconds)) throw new RangeError(`redisEventPublisher: ttlSeconds must be a whole number of seconds, 1 or more, not ${ttlSeconds}`);
  // The app's onError, whose throw is swallowed (it must not stop later events, reject a publish or, from the
  // client's 'error' event, end the process), or the first failure of each kind as a process warning.
  const { onError } = options;
  const reportUnpublished = reportToAppOrWarnOnce<[error: unknown, event: AgentEvent, sessionId: string]>(
    onError && ((error) => onError(error)),
    EVENT_NOT_PUBLISHED_WARNING,
    (error, event, sessionId) =>
      `redisEventPublisher: the ${event.type} event of session ${sessionId} was not published (${errorMessage(error)}); the run goes on without it. Later failures of this publisher are not warned of: pass onError to redisEventPublisher to hear of each.`,
  );
  const reportConnection = reportToAppOrWarnOnce(
    onError,
    REDIS_CONNECTION_WARNING,
    (error) =>
      `redisEventPublisher: the Redis connection reported an error (${errorMessage(error)}); the client reconnects by itself, and events that cannot be written meanwhile are lost. Later connection errors of this publisher are not warned of: pass onError to redisEventPublisher to hear of each.`,
  );
  // Listened on only once every option is taken: a refused publisher leaves the client as it was.
  tolerateRedisErrors(options.redis, (error) => reportConnection(error));
  let chain: Promise<void> = Promise.resolve();
  return {
    publish(sessionId, event, lease) {
      if (!include(event)) return chain;
      const key = sessionEventsKey(sessionId);
      const entry = encodeStreamedEvent({ sessionId, epoch: lease.epoch, event } satisfies StreamedEvent);
      const redis = options.redis;
      // The deadline runs from now, waiting for earlier entries included: behind a stalled connection they all fail within it, not one after another.
      const written = chain.then(async () => {
        if (redis.eval) {
          // Appended only if no newer owner wrote since: checked and written in one step on the server.
          await redis.eval(FENCED_APPEND_SCRIPT, { keys: [key], arguments: [String(lease.epoch), entry, String(maxLength), String(ttlSeconds)] });
          return;
        }
        // Sent together (the client pipelines commands issued in one tick).
        await Promise.all([
          redis.xAdd(key, '*', { entry, epoch: String(lease.epoch) }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: maxLength } }),
          redis.expire(key, ttlSeconds),
        ]);
      });
      chain = answerWithin(written, writeTimeoutMs, () => new Error(`Redis did not confirm the ${event.type} event of session ${sessionId} within ${writeTimeoutMs} ms (writeTimeoutMs)`)).catch((error: unknown) =>
        reportUnpublished(error, event, sessionId),
      );
      return chain;
    },
    flushed: () => chain,
  };
}

export interface ReadEventsOptions {
  /**
   * A connection of its own: a blocking read holds it for up to `blockMs`
   * (`redis.duplicate()` then `connect()`; the reader does not close it).
   */
  redis: RedisClient;
  sessionId: string;
  /** Continue after this entry (a browser's `Last-Event-ID`); default: from the stream's start. */
  lastEventId?: string;
  /** How long one read waits for new entries: a whole number of ms, 1 or more (Redis reads `BLOCK 0` as for ever). Default 5,000 ms. */
  blockMs?: number;
  /**
   * How long past `blockMs` a read may go unanswered before the reader gives up with an error: a
   * connection that stalls without a reset would otherwise keep a reader waiting for ever.
   * @default 5000
   */
  readTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Also yield entries whose epoch is below the highest one seen: what a worker wrote after
   * another had taken its session over (it had lost its lease and did not know yet). Default
   * false: those are dropped, so a client never sees a fenced-off worker's `run-end` after the
   * real one.
   */
  includeStale?: boolean;
}

/** How long a read may go unanswered past its block when `readTimeoutMs` is not given. */
export const DEFAULT_READ_TIMEOUT_MS = 5_000;

/** Whether a `readTimeoutMs` is one a reader can keep: a finite number of ms, 0 or more. */
export function isReadTimeoutMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** `readSessionEvents`' options, checked whole when it is called: a misspelt one is refused, not ignored. The session id and the times are checked by their own rules, whose messages name them. */
const readEventsOptionsSchema = z.strictObject({
  redis: redisClientOption,
  sessionId: z.unknown(),
  lastEventId: z.string().optional(),
  blockMs: z.unknown().optional(),
  readTimeoutMs: z.unknown().optional(),
  signal: z.instanceof(AbortSignal).optional(),
  includeStale: z.boolean().optional(),
});

/**
 * A session's events from Redis, in order, from `lastEventId` on, waiting for new ones until
 * `signal` aborts. Throws when Redis does not answer a read within `blockMs + readTimeoutMs`.
 * Its options are checked when it is called, not at the first `next()`.
 *
 * @example
 * ```ts
 * for await (const { id, entry } of readSessionEvents({ redis: reader, sessionId: 'chat-42', signal })) {
 *   console.log(id, entry.event.type);
 * }
 * ```
 */
export function readSessionEvents(options: ReadEventsOptions): AsyncGenerator<{ id: string; entry: StreamedEvent }> {
  parseOptions('readSessionEvents', readEventsOptionsSchema, options);
  assertSessionId(options.sessionId);
  const blockMs = options.blockMs ?? 5_000;
  // XREAD BLOCK 0 waits for ever: the read timeout would then report a Redis that did not answer, and leave the read on the connection.
  if (!isPositiveWholeNumber(blockMs)) throw new RangeError(`readSessionEvents: blockMs must be a whole number of ms, 1 or more, not ${blockMs}`);
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  if (!isReadTimeoutMs(readTimeoutMs)) throw new RangeError(`readSessionEvents: readTimeoutMs must be a number of ms, 0 or more, not ${String(readTimeoutMs)}`);
  return sessionEntries(options, blockMs, readTimeoutMs);
}

async function* sessionEntries(options: ReadEventsOptions, blockMs: number, readTimeoutMs: number): AsyncGenerator<{ id: string; entry: StreamedEvent }> {
  // A reader hears of a broken connection through its read, which fails or goes unanswered (readTimeoutMs).
  tolerateRedisErrors(options.redis, () => undefined);
  const key = sessionEventsKey(options.sessionId);
  let id = options.lastEventId ?? '0';
  const answerMs = blockMs + readTimeoutMs;
  const answered = <T>(read: Promise<T>) =>
    answerWithin(read, answerMs, () => new Error(`Redis did not answer a read of session ${options.sessionId}'s events within ${answerMs} ms (blockMs + readTimeoutMs)`));
  /** A stream entry as the event a worker published, or an error that names the entry and the session: something else wrote to the stream. */
  const decode = (entryId: string, fields: Record<string, string>): StreamedEvent => {
    const notOurs = (problem: string) => new Error(`Redis stream entry ${entryId} of session ${options.sessionId} is not a loopchart event: ${problem}`);
    const text = fields.entry;
    if (text === undefined) throw notOurs(`it has no "entry" field (fields: ${Object.keys(fields).join(', ').slice(0, 80)})`);
    let entry: StreamedEvent;
    try {
      entry = decodeStreamedEvent(text);
    } catch (error) {
      throw notOurs(errorMessage(error));
    }
    if (entry.sessionId !== options.sessionId) throw notOurs(`it belongs to session ${JSON.stringify(entry.sessionId).slice(0, 140)}`);
    return entry;
  };
  const epochs = new EpochFilter();
  if (options.lastEventId !== undefined && !options.includeStale) {
    // The entry the client had last: the epoch it had seen, so a stale entry after it is dropped too.
    const range = options.redis.xRange?.(key, options.lastEventId, options.lastEventId, { COUNT: 1 });
    const seen = (range === undefined ? undefined : await answered(range)) as Array<{ id: string; message: Record<string, string> }> | undefined;
    const last = seen?.[0];
    if (last !== undefined) epochs.admit(decode(last.id, last.message).epoch);
  }
  while (!options.signal?.aborted) {
    const reply = (await answered(options.redis.xRead({ key, id }, { BLOCK: blockMs, COUNT: 500 }))) as Array<{
      messages: Array<{ id: string; message: Record<string, string> }>;
    }> | null;
    for (const stream of reply ?? []) {
      for (const message of stream.messages) {
        id = message.id;
        const entry = decode(message.id, message.message);
        if (epochs.admit(entry.epoch) || options.includeStale) yield { id: message.id, entry };
      }
    }
  }
}
