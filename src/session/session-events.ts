import type { ModelMessage } from 'ai';
import type { LeaseLostError } from '../persistence/session-store.js';
import type { RunResult } from '../core/result.js';

/**
 * What a caller sends a session: `SessionInput` (a prompt, an answer, a steer, a follow-up, an
 * abort, a resume) as the session chart's own events, plus the facade's queued messages and the
 * calls that end the session. `requestId`, when given, keeps an input from being applied twice:
 * the session refuses one whose id a checkpoint already recorded. `inputId` ties a prompt to the
 * run it starts, so its caller hears of that run's end (`session.runSettled`). A `live` input
 * (sent to the worker while a run works, beside its durable copy) only joins an active run: on an
 * idle session it is refused, and its durable copy starts the run instead.
 */
export type SessionInputEvent =
  | { type: 'session.prompt'; messages: ModelMessage[]; inputId?: string; requestId?: string; live?: boolean }
  | { type: 'session.approve'; toolCallId: string; requestId?: string }
  | { type: 'session.deny'; toolCallId: string; reason?: string; requestId?: string }
  /** Redirects the active run; on an idle session it starts a run with the message. */
  | { type: 'session.steer'; message: ModelMessage; requestId?: string; live?: boolean }
  /** Joins the active run when it would complete; on an idle session it starts a run with the message. Refused while calls wait for approval. */
  | { type: 'session.follow-up'; message: ModelMessage; requestId?: string; live?: boolean }
  | { type: 'session.abort'; reason?: string; requestId?: string }
  /** Nothing new: a restored run goes on by itself. */
  | { type: 'session.resume'; requestId?: string }
  /** `agent.steer` / `agent.followUp`: the message waits in the run's queue, or for the next run while idle. */
  | { type: 'session.queue'; queue: 'steering' | 'followUp'; message: ModelMessage };

/** What ends a session: `dispose()` (a run that works is aborted first), or a halt (stopped as a crash would stop it). */
export type SessionEndEvent = { type: 'session.dispose' } | { type: 'session.halt'; error: Error };

/** What the session's own actors and its run tell it. */
export type SessionSignalEvent =
  /** The lease renewer found the lease lost (taken by another owner, or lapsed while the store was out of reach). */
  | { type: 'session.leaseLost'; error: LeaseLostError }
  /** The session writer could not write a step boundary. */
  | { type: 'session.writeFailed'; error: unknown }
  /** The run's calls wait for approval / the run works again. */
  | { type: 'run.waiting' }
  | { type: 'run.continued' }
  /** The run's `run-end` reached the agent's subscribers (with a store, once its boundary is written). */
  | { type: 'run.ended'; result: RunResult };

export type SessionEvent = SessionInputEvent | SessionEndEvent | SessionSignalEvent;

/** What the session emits to whoever sends it inputs (`actor.on(type, …)`). */
export type SessionEmitted =
  /** The run started by the prompt with this `inputId` ended (its `run-end` was delivered). */
  | { type: 'session.runSettled'; inputId: string; result: RunResult }
  /** The run started by the prompt with this `inputId` will not end here: the session was disposed while it waited for approval, or halted. */
  | { type: 'session.runAbandoned'; inputId: string; reason: RunAbandonment }
  /** An input was applied. */
  | { type: 'session.inputApplied'; input: SessionInputEvent }
  /** An input does not fit the session's state (`reason` says why), or its request id was applied before (`duplicate`). */
  | { type: 'session.inputRefused'; input: SessionInputEvent; reason: SessionRefusal };

/** Why a session refused an input. */
export type SessionRefusal =
  | { kind: 'busy'; message: string }
  | { kind: 'not-waiting'; message: string }
  | { kind: 'idle'; message: string }
  | { kind: 'duplicate'; message: string }
  | { kind: 'closed'; message: string }
  | { kind: 'not-open'; message: string; error: unknown };

/** The `inputId` a restored run is known by: `resume()` hears of its end. */
export const RESUMED_RUN = 'resumed';

/** Why a run will not end in this session: disposed while it waited for approval (it stays in the session), or halted with `error`. */
export type RunAbandonment = { kind: 'disposed' } | { kind: 'halted'; error: Error };

/** The run a restored session was in the middle of, as far as this session knows. */
export type ResumedRun = { status: 'pending' } | { status: 'ended'; result: RunResult } | { status: 'abandoned'; reason: RunAbandonment };
