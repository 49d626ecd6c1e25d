import type { Outcome } from '../core/result.js';
import type { RunTrace } from '../core/run-trace.js';
import type { ModelCallRecord, SessionHeader } from '../persistence/session-store.js';

/** Everything a step-through view needs of one session, from any store. */
export interface SessionRecordView {
  sessionId: string;
  /** The session's header (`forkedFrom` is set on a fork). */
  header: SessionHeader;
  /** The session's runs, in the order they started. */
  runs: RecordedRun[];
  /** Every checkpoint of the session, in order, without its snapshot. */
  checkpoints: CheckpointSummary[];
  /** What could not be read or was not recorded (a session written before timelines were kept: "no timeline recorded for run X"). */
  warnings: string[];
}

/** One checkpoint (step boundary) of a session, without the machine's snapshot. */
export interface CheckpointSummary {
  /** 1-based, per session: what `forkSession({ at })` and `loopchart fork --at` take. */
  id: number;
  /** Epoch milliseconds. */
  at: number;
  /** The machine's state, dotted (`running.llm.calling`, `idle`). */
  state: string;
  runId?: string;
  /** LLM calls made so far in the run. */
  step: number;
  /** The history's length at this checkpoint. */
  messageCount: number;
  /** Set on the checkpoint that ends a run. */
  outcome?: Outcome;
}

/** One run of a session, as recorded. */
export interface RecordedRun {
  runId: string;
  /**
   * The run's trace (the type `result.trace` has), rebuilt from what the session holds: the
   * states and transitions from the timeline, each tool output's preview from the history. For a
   * run that has not ended (still running, or its process died), `ended` is false and the trace
   * stops at the last point recorded, with the outcome `aborted` as a placeholder.
   */
  trace: RunTrace;
  /** Whether the run ended (its end is in the session). */
  ended: boolean;
  /** One point per transition the run took, in order. */
  timeline: TimelinePoint[];
  /** Each attempt of each step: what was asked and what came back. */
  modelCalls: ModelCallRecord[];
}

/** One transition the machine took. */
export interface TimelinePoint {
  /** 0-based, within the run. */
  index: number;
  /** Epoch milliseconds. */
  at: number;
  /** The event's type (`always` for an eventless transition). */
  event: string;
  /** Dotted leaf state paths, as in the trace (`running.llm.calling`). */
  from: string;
  to: string;
  /** The guard that let the transition through, when it had one. */
  guard?: string;
  /** LLM calls made so far in the run. */
  step: number;
  /** The checkpoint written at this point, if any. */
  checkpointId?: number;
}

/** One attempt of one step: the model call's request in summary, and its response or error (as stored). */
export type { ModelCallRecord } from '../persistence/session-store.js';
