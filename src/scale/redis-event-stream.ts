/**
 * Deltas across workers: the worker that advances a session publishes its agent's events to a
 * Redis Stream, and any web node reads them back (see `serveAgentEventStream` for Server-Sent
 * Events). A reader continues from the id of the last entry it saw, so a browser that reconnects,
 * or a session that another worker takes over after a crash, continues the same stream.
 */
import type { RedisClientType } from 'redis';
import type { Observable } from 'rxjs';
import type { AgentEvent } from '../events.js';

/** One entry of a session's event stream. */
export interface StreamedEvent {
  /** The agent's event, JSON-safe (see `toWireEvent`). */
  event: AgentEvent;
  /** The step of a step-scoped event. */
  step?: number;
  /** The attempt of the step, for the events that carry one (deltas, `retry`, `stream-warning`). */
  attempt?: number;
  /**
   * The fencing epoch of the session lease the publishing worker held. A worker that takes a
   * session over after a crash holds a higher epoch, so its entries supersede the dead worker's.
   */
  epoch: number;
}

/** A text or reasoning delta entry. */
export type StreamedDelta = StreamedEvent & { event: Extract<AgentEvent, { type: 'text-delta' | 'reasoning-delta' }> };

/** What `publishAgentEvents` needs of a node-redis client (`createClient()`, or a cluster client). */
export type EventStreamWriter = Pick<RedisClientType, 'xAdd' | 'expire'>;

/** A connection of its own for blocking reads, made by `EventStreamReadSource.duplicate()`. */
export interface EventStreamReadConnection extends Pick<RedisClientType, 'xRead'> {
  connect(): Promise<unknown>;
  destroy(): void;
  readonly isOpen: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** What `readAgentEvents` needs of a node-redis client: a way to open a connection of its own. */
export interface EventStreamReadSource {
  duplicate(): EventStreamReadConnection;
}

export interface PublishAgentEventsOptions {
  redis: EventStreamWriter;
  /** The stream, from `streamKey(sessionId)`. */
  key: string;
  /** The agent's events, e.g. `agent.events$`. */
  events$: Observable<AgentEvent>;
  /** The fencing epoch of the session lease this worker holds (`advanceSession`'s `onEvent` reports it). */
  epoch: number;
  /** Keep about this many entries (`MAXLEN ~`: Redis trims whole nodes, so a few more may stay). Default 10,000. */
  maxLength?: number;
  /** The stream expires this long after its last entry. Default 86,400 (a day). */
  ttlSeconds?: number;
  /** Called once when a write fails; publishing stops there (see `AgentEventPublishError`). */
  onError?: (error: AgentEventPublishError) => void;
}

export interface AgentEventPublisher {
  /** Takes no more events, then resolves once those already taken are in Redis. */
  stop(): Promise<void>;
  /** Resolves once every event taken so far is in Redis; rejects with the `AgentEventPublishError` that stopped publishing. */
  flushed(): Promise<void>;
}

/**
 * A write to the stream failed. Publishing stops at the first failure rather than skip the
 * event: a reader would otherwise get a stream with a hole in it and no sign of one.
 */
export class AgentEventPublishError extends Error {
  override readonly name = 'AgentEventPublishError';
}

/** An entry of the stream is not one `publishAgentEvents` wrote, or the blocking read failed. */
export class AgentEventReadError extends Error {
  override readonly name = 'AgentEventReadError';
}

export interface ReadAgentEventsOptions {
  /** A client to duplicate: the read blocks a connection of its own, opened here and closed when the read ends. */
  redis: EventStreamReadSource;
  key: string;
  /** The id of the last entry the reader has; it gets the entries after it. Default: from the start. */
  lastEventId?: string;
  /** How long one `XREAD BLOCK` waits before it is issued again. Default 10,000 ms. */
  blockMs?: number;
  /** Ends the read: the blocking connection is closed at once. */
  signal?: AbortSignal;
}

/** An entry as read back, with its Redis id (what a reader continues from). */
export interface ReadAgentEvent {
  id: string;
  entry: StreamedEvent;
}

const ENTRY_FIELD = 'entry';
const READ_BATCH = 100;
const STREAM_ENTRY_ID = /^\d{1,20}(?:-\d{1,20})?$/;

/**
 * The stream of a session's events. One stream per session, not per run: runs of a session
 * follow each other on it and each entry carries its `runId`, so a client follows a session with
 * one URL and one `Last-Event-ID`, which stays meaningful across runs (an entry id of one stream
 * means nothing in another), and a worker that resumes a run after a crash writes to the same
 * stream without the reader having to learn a new key.
 *
 * @example
 * ```ts
 * streamKey('chat-42'); // 'loopchart:events:chat-42'
 * ```
 */
export function streamKey(sessionId: string): string {
  if (sessionId === '') throw new TypeError('streamKey needs a non-empty sessionId');
  return `loopchart:events:${sessionId}`;
}

/**
 * Publishes an agent's events to a Redis Stream, in the order they come: each write waits for
 * the one before it, so entries are never reordered. Every write also renews the stream's expiry.
 * The first failed write stops publishing; `flushed()` and `stop()` then reject with it.
 *
 * @example
 * ```ts
 * const redis = await createClient({ url }).connect();
 * await advanceSession({
 *   ...options,
 *   onEvent: (event, lease) => (publisher ??= publishAgentEvents({ redis, key: streamKey(sessionId), events$, epoch: lease.epoch })),
 * });
 * // or, with an agent at hand:
 * const publisher = publishAgentEvents({ redis, key: streamKey('chat-42'), events$: agent.events$, epoch: 7 });
 * await agent.run('Summarise the build log');
 * await publisher.stop();
 * ```
 */
export function publishAgentEvents(options: PublishAgentEventsOptions): AgentEventPublisher {
  const { redis, key, events$, epoch, maxLength = 10_000, ttlSeconds = 86_400, onError } = options;
  if (key === '') throw new TypeError('publishAgentEvents needs a non-empty stream key');
  requireInteger('epoch', epoch, 0);
  requireInteger('maxLength', maxLength, 1);
  requireInteger('ttlSeconds', ttlSeconds, 1);

  let written: Promise<void> = Promise.resolve();
  let failure: AgentEventPublishError | undefined;
  const write = async (type: AgentEvent['type'], serialised: string): Promise<void> => {
    if (failure) return;
    try {
      await Promise.all([
        redis.xAdd(key, '*', { [ENTRY_FIELD]: serialised }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: maxLength } }),
        redis.expire(key, ttlSeconds),
      ]);
    } catch (error) {
      failure = new AgentEventPublishError(
        `could not publish a "${type}" event to the Redis stream "${key}" (${describe(error)}); nothing after it was published`,
        { cause: error },
      );
      subscription.unsubscribe();
      onError?.(failure);
    }
  };
  const subscription = events$.subscribe({
    next: (event) => {
      // Serialised now: the event as it was when it happened, whatever becomes of the object later.
      const serialised = JSON.stringify(streamedEvent(event, epoch));
      written = written.then(() => write(event.type, serialised));
    },
    // The agent's own subscribers hear of its failure; the events before it are still written.
    error: () => undefined,
  });
  const flushed = async (): Promise<void> => {
    await written;
    if (failure) throw failure;
  };
  return {
    flushed,
    async stop() {
      subscription.unsubscribe();
      await flushed();
    },
  };
}

/**
 * Reads a session's events from `lastEventId` on (from the start without one), waiting for new
 * ones with `XREAD BLOCK` until `signal` aborts. The blocking read takes a connection of its own:
 * it duplicates `redis`, and closes the duplicate when the read ends (abort, `break`, or error).
 * Entries trimmed away (see `maxLength`) or expired are gone: a reader behind them continues from
 * the oldest entry left.
 *
 * @throws TypeError when `lastEventId` is not a Redis stream entry id.
 * @example
 * ```ts
 * const stop = new AbortController();
 * for await (const { id, entry } of readAgentEvents({ redis, key: streamKey('chat-42'), lastEventId, signal: stop.signal })) {
 *   render(entry);
 *   lastEventId = id;
 * }
 * ```
 */
export function readAgentEvents(options: ReadAgentEventsOptions): AsyncIterable<ReadAgentEvent> {
  if (options.key === '') throw new TypeError('readAgentEvents needs a non-empty stream key');
  if (options.lastEventId !== undefined && !isStreamEntryId(options.lastEventId)) {
    throw new TypeError(`lastEventId "${options.lastEventId}" is not a Redis stream entry id (like "1700000000000-0")`);
  }
  requireInteger('blockMs', options.blockMs ?? 10_000, 1);
  return readEntries(options);
}

async function* readEntries({ redis, key, lastEventId = '0', blockMs = 10_000, signal }: ReadAgentEventsOptions): AsyncGenerator<ReadAgentEvent> {
  if (signal?.aborted) return;
  const connection = redis.duplicate();
  // A connection failure rejects the pending XREAD, which ends the read with it; the event itself only needs a listener.
  connection.on('error', () => undefined);
  const close = () => {
    if (connection.isOpen) connection.destroy();
  };
  signal?.addEventListener('abort', close, { once: true });
  let after = lastEventId;
  try {
    await connection.connect();
    while (!signal?.aborted) {
      let reply: XReadReply;
      try {
        reply = await connection.xRead({ key, id: after }, { BLOCK: blockMs, COUNT: READ_BATCH });
      } catch (error) {
        if (signal?.aborted) return;
        throw new AgentEventReadError(`reading the Redis stream "${key}" after entry ${after} failed: ${describe(error)}`, { cause: error });
      }
      for (const message of reply?.[0]?.messages ?? []) {
        if (signal?.aborted) return;
        const id = String(message.id);
        yield { id, entry: parseEntry(key, id, message.message) };
        after = id;
      }
    }
  } finally {
    signal?.removeEventListener('abort', close);
    close();
  }
}

/**
 * The text and reasoning deltas that survive, in order. Within a run and step, an entry's
 * generation is its (epoch, attempt), compared epoch first (an entry without an attempt counts
 * as attempt 0); a delta is dropped when any entry of the same run and step has a higher one: a
 * retry (whose `attempt` is the attempt about to be made), or a worker with a later lease that
 * took the session over (its deltas start again at attempt 1). That also drops what a worker
 * that lost its lease goes on publishing. A live client does the same incrementally: when an
 * entry of a run and step has a higher generation than any before it, it clears the text shown
 * for that step. Deltas of sub-agents (inside `subagent` events) are not looked at.
 *
 * @example
 * ```ts
 * const kept = keptDeltas(entries).map(({ event }) => event.text).join('');
 * ```
 */
export function keptDeltas(entries: readonly StreamedEvent[]): StreamedDelta[] {
  const newest = new Map<string, Generation>();
  for (const entry of entries) {
    const scope = stepScope(entry);
    if (scope === undefined) continue;
    const generation = generationOf(entry);
    const known = newest.get(scope);
    if (known === undefined || compareGenerations(generation, known) > 0) newest.set(scope, generation);
  }
  return entries.filter((entry): entry is StreamedDelta => {
    if (entry.event.type !== 'text-delta' && entry.event.type !== 'reasoning-delta') return false;
    const newestOfStep = newest.get(stepScope(entry)!)!;
    return compareGenerations(generationOf(entry), newestOfStep) >= 0;
  });
}

/**
 * The assistant text that survives (see `keptDeltas`): the text deltas of the run (of every run
 * without `runId`), joined. Once a run is over, that is the text of the last attempt of each step.
 *
 * @example
 * ```ts
 * keptText(entries, 'run-1'); // 'Hello world'
 * ```
 */
export function keptText(entries: readonly StreamedEvent[], runId?: string): string {
  return keptDeltas(entries)
    .filter(({ event }) => event.type === 'text-delta' && (runId === undefined || event.runId === runId))
    .map(({ event }) => event.text)
    .join('');
}

/**
 * A JSON-safe copy of an event: an `Error` becomes `{ name, message, cause?, …its own fields }`
 * (no stack: it goes to browsers), a `bigint` a decimal string, bytes (`Uint8Array`, e.g. an
 * image in a message) a base64 string, and a circular reference `"[Circular]"`. Objects with a
 * `toJSON` (dates, URLs) become what it returns.
 *
 * @example
 * ```ts
 * JSON.stringify(toWireEvent({ type: 'tool-result', runId, step: 1, toolCallId: 'c1', toolName: 'fetch', output: new Error('timed out'), isError: true, durationMs: 30 }));
 * // …"output":{"name":"Error","message":"timed out"}…
 * ```
 */
export function toWireEvent(event: AgentEvent): AgentEvent {
  return toJsonSafe(event, new Set()) as AgentEvent;
}

/** The entry `publishAgentEvents` writes for an event. */
function streamedEvent(event: AgentEvent, epoch: number): StreamedEvent {
  const step = 'step' in event ? event.step : undefined;
  const attempt = 'attempt' in event ? event.attempt : undefined;
  return { event: toWireEvent(event), ...(step !== undefined ? { step } : {}), ...(attempt !== undefined ? { attempt } : {}), epoch };
}

function toJsonSafe(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  if (!(value instanceof Error) && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return toJsonSafe((value as { toJSON(): unknown }).toJSON(), ancestors);
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => toJsonSafe(item, ancestors));
    const copy: Record<string, unknown> = {};
    if (value instanceof Error) {
      copy.name = value.name;
      copy.message = value.message;
      if (value.cause !== undefined) copy.cause = toJsonSafe(value.cause, ancestors);
    }
    for (const [field, item] of Object.entries(value)) copy[field] = toJsonSafe(item, ancestors);
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

function parseEntry(key: string, id: string, fields: unknown): StreamedEvent {
  const raw = fields instanceof Map ? (fields.get(ENTRY_FIELD) as unknown) : (fields as Record<string, unknown> | undefined)?.[ENTRY_FIELD];
  const notOurs = (why: string) => new AgentEventReadError(`entry ${id} of the Redis stream "${key}" is not an event publishAgentEvents wrote: ${why}`);
  if (typeof raw !== 'string') throw notOurs(`it has no "${ENTRY_FIELD}" field`);
  let entry: unknown;
  try {
    entry = JSON.parse(raw);
  } catch (error) {
    throw notOurs(`its "${ENTRY_FIELD}" field is not JSON (${describe(error)})`);
  }
  if (!isStreamedEvent(entry)) throw notOurs('it has no event with a type, or no epoch');
  return entry;
}

function isStreamedEvent(value: unknown): value is StreamedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { event, epoch } = value as { event?: unknown; epoch?: unknown };
  return typeof epoch === 'number' && typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string';
}

/** `XREAD`'s reply for one stream, as node-redis gives it with RESP 2 and 3 alike; null when the block timed out. */
type XReadReply = Array<{ name: unknown; messages: Array<{ id: unknown; message: unknown }> }> | null;

type Generation = readonly [epoch: number, attempt: number];

function generationOf(entry: StreamedEvent): Generation {
  return [entry.epoch, entry.attempt ?? 0];
}

function compareGenerations([epochA, attemptA]: Generation, [epochB, attemptB]: Generation): number {
  return epochA !== epochB ? epochA - epochB : attemptA - attemptB;
}

/** `runId` and `step` of a step-scoped entry, as one map key. */
function stepScope(entry: StreamedEvent): string | undefined {
  const runId = 'runId' in entry.event ? entry.event.runId : undefined;
  if (runId === undefined || entry.step === undefined) return undefined;
  return JSON.stringify([runId, entry.step]);
}

/** True for a Redis stream entry id: `<milliseconds>-<sequence>`, or the milliseconds alone. */
export function isStreamEntryId(id: string): boolean {
  return STREAM_ENTRY_ID.test(id);
}

function requireInteger(name: string, value: number, minimum: number): void {
  if (!Number.isSafeInteger(value) || value < minimum) throw new RangeError(`${name} must be an integer of at least ${minimum}, got ${value}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
