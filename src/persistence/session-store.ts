import type { ModelMessage } from 'ai';
import type { Outcome } from '../core/result.js';
import type { RunTrace } from '../core/run-trace.js';

/** The session log format this version writes and reads. */
export const SESSION_FORMAT = 'loopchart-session';
/**
 * 2: the timeline, model-call and trace records join the messages and checkpoints. Version 1
 * sessions are still read (and continued as version 1, without those records, so that an older
 * loopchart can still open them).
 */
export const SESSION_FORMAT_VERSION = 2;
/** The format versions this loopchart reads. */
export const SESSION_FORMAT_VERSIONS_READ: readonly number[] = [1, 2];

export interface SessionHeader {
  type: 'header';
  format: typeof SESSION_FORMAT;
  version: number;
  sessionId: string;
  createdAt: string;
  /** Set on a fork: the session and checkpoint it started from. */
  forkedFrom?: { sessionId: string; checkpoint: number };
}

/** One message of the history, at its index. A record with a lower index than the history's length rewinds it (a step re-run after a restart). */
export interface MessageRecord {
  type: 'message';
  index: number;
  message: ModelMessage;
}

/** The whole history replaced (after a compaction summary, or at the start of a fork). */
export interface HistoryRecord {
  type: 'history';
  messages: ModelMessage[];
}

/** A step boundary: the machine's persisted snapshot (without the history, which the message records hold). */
export interface CheckpointRecord {
  type: 'checkpoint';
  /** 1-based, per session. */
  id: number;
  at: string;
  /** The machine's state, dotted (`running.llm.calling`, `running.awaitingApproval`, `idle`). */
  state: string;
  runId?: string;
  /** LLM calls made so far in the run. */
  step: number;
  /** Set at a run's end. */
  outcome?: Outcome;
  /** The history's length at this checkpoint. */
  messageCount: number;
  snapshot: unknown;
  /**
   * The request ids of the inputs (`advanceSession`) this checkpoint is the first to reflect: an
   * engine that retries a step with the same id finds it here and does not apply the input twice.
   */
  requestIds?: string[];
  /**
   * The run's `invoke_agent` span, while telemetry records the run: a run resumed from this
   * checkpoint in another process links its own root span to it (OpenTelemetry's W3C ids).
   */
  traceContext?: TraceContextRecord;
}

/** A span's identity as OpenTelemetry's `SpanContext` gives it. */
export interface TraceContextRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/**
 * The transitions the machine took since the previous record of the run, compactly: one tuple per
 * macrostep's microstep, `[ms after at, event type, from, to, step, guard?]` with leaf states as
 * dotted paths and `always` for an eventless transition. Written with the checkpoint that follows them.
 */
export interface TimelineRecord {
  type: 'timeline';
  runId: string;
  /** Epoch milliseconds the points' times count from. */
  at: number;
  points: TimelineTuple[];
}

/** `[ms after the record's at, event type, from, to, step]`, and the guard when the transition had one. */
export type TimelineTuple = [number, string, string, string, number] | [number, string, string, string, number, string];

/** One attempt of one step: the model call's request in summary, and its response or error. */
export interface ModelCallRecord {
  step: number;
  /** 1 for the first try, 2 for the first retry. */
  attempt: number;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs?: number;
  request: {
    /** Messages in the history when the call was made. */
    messageCount: number;
    /** The names of the tools the model was offered. */
    tools: string[];
    /** The call's settings: the model (`provider:modelId`) and the limits and options it was sent. */
    settings: Record<string, unknown>;
  };
  response?: {
    text: string;
    reasoning?: string;
    toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
    finishReason?: string;
    usage?: unknown;
  };
  error?: { kind: string; message: string; status?: number };
}

/** A {@link ModelCallRecord} as a line of the session log: with its type and the run it belongs to. */
export interface ModelCallLogRecord extends ModelCallRecord {
  type: 'model-call';
  runId: string;
}

/**
 * A run's trace, written with the checkpoint that ends the run. What the session holds elsewhere
 * is left out — the states and transitions (the timeline records have them) and the tool outputs'
 * previews (the history has the outputs) — and put back by `openSessionRecord`.
 */
export interface TraceRecord {
  type: 'trace';
  trace: RunTrace;
}

export type SessionRecord = MessageRecord | HistoryRecord | CheckpointRecord | TimelineRecord | ModelCallLogRecord | TraceRecord;

export interface SessionLog {
  header: SessionHeader;
  records: SessionRecord[];
  /** Problems found and skipped while reading (a torn last line). */
  warnings: string[];
  /**
   * Which state of the session this is, for {@link SessionStore.append}'s `after`: a writer that
   * passes it is refused once anyone else has written since. Opaque; stores that cannot tell leave it out.
   */
  version?: SessionVersion;
}

/** A store's mark of one state of a session (the file's size for `fileStore`). Opaque to callers. */
export type SessionVersion = string | number;

/**
 * Where sessions live. `fileStore(dir)` is the embedded default (one JSONL file
 * per session); implement this interface to keep sessions elsewhere.
 *
 * Contract: `append` resolves only once the records are written (the agent
 * reports a step boundary after that); records of one session are appended in
 * call order; `read` returns the records in the order they were appended.
 *
 * One writer at a time: a writer passes the version it last read or wrote as
 * `after`, and `append` rejects with `SessionConflictError`, writing nothing,
 * when the session has changed since (another agent or process wrote to it).
 * `append` never creates a session: one that is gone is a `SessionMissingError`.
 */
export interface SessionStore {
  /** The session's log, or undefined when there is no such session. Throws `SessionFormatError` for an unreadable one. */
  read(sessionId: string): Promise<SessionLog | undefined>;
  /** Starts a session and resolves with its version. Throws when it exists already. */
  create(header: SessionHeader): Promise<SessionVersion | void>;
  /** Appends records and resolves with the session's new version (when the store keeps versions). */
  append(sessionId: string, records: SessionRecord[], options?: AppendOptions): Promise<SessionVersion | void>;
  /** Leases with fencing, for stores that several processes share (`fileStore`, `pgStore`). */
  leases?: SessionLeases;
}

export interface AppendOptions {
  /** The version this writer last read or wrote: refused with `SessionConflictError` when the session changed since. */
  after?: SessionVersion;
  /**
   * The epoch of the lease this writer holds: refused with `LeaseLostError` when another owner
   * has acquired the session's lease since (checked in the same transaction as the write).
   */
  epoch?: number;
}

/** One owner's hold on a session. */
export interface SessionLease {
  sessionId: string;
  owner: string;
  /** Grows by one at every acquisition: a write fenced with an older epoch is refused. */
  epoch: number;
  /** When the lease lapses unless renewed (ms since the epoch, by the store's clock). */
  expiresAt: number;
}

/**
 * Leases on sessions: at most one owner holds a session at a time, and every
 * acquisition raises the session's epoch, so a writer that lost its lease (a
 * paused or partitioned worker whose lease lapsed and was taken) is refused at
 * its next append (`AppendOptions.epoch`) and stops instead of writing over
 * the new owner.
 */
export interface SessionLeases {
  /**
   * Takes the session's lease for `ttlMs`: free, lapsed or already this owner's (a restarted
   * worker) — each raises the epoch. The session need not exist yet.
   * @throws LeaseHeldError when another owner holds an unexpired lease.
   */
  acquire(sessionId: string, owner: string, ttlMs: number): Promise<SessionLease>;
  /**
   * Extends the lease by `ttlMs` from now. A lapsed lease that nobody took since is renewed.
   * @throws LeaseLostError when another owner acquired it since (the epoch moved on).
   */
  renew(lease: SessionLease, ttlMs: number): Promise<SessionLease>;
  /** Lets the lease go at once (the epoch stays); a lease already lost is left alone. */
  release(lease: SessionLease): Promise<void>;
}

/** Another owner holds the session's lease. */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
  constructor(
    readonly sessionId: string,
    readonly holder: string,
    readonly expiresAt: number,
  ) {
    super(`session ${sessionId} is leased by ${holder} until ${new Date(expiresAt).toISOString()}`);
  }
}

/** This writer's lease was taken by another owner: it must stop; nothing was written. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** A session log this version cannot read: another format version, or a corrupt line that is not the last. */
export class SessionFormatError extends Error {
  override readonly name = 'SessionFormatError';
}

/** Another writer changed the session since this one read it: nothing was written. Reopen the session to go on. */
export class SessionConflictError extends Error {
  override readonly name = 'SessionConflictError';
}

/** The session to append to is gone (deleted while open): it is not recreated. */
export class SessionMissingError extends Error {
  override readonly name = 'SessionMissingError';
}

export function sessionHeader(sessionId: string, forkedFrom?: SessionHeader['forkedFrom']): SessionHeader {
  return {
    type: 'header',
    format: SESSION_FORMAT,
    version: SESSION_FORMAT_VERSION,
    sessionId,
    createdAt: new Date().toISOString(),
    ...(forkedFrom ? { forkedFrom } : {}),
  };
}
