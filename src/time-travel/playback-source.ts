/**
 * What the playback page reads of a session, as tt-record's `openSessionRecord` gives it. Until
 * `src/time-travel/session-record.ts` lands, the contract's types stand here; then this file only
 * re-exports them.
 */
import type { ModelMessage } from 'ai';
import type { SessionHeader, SessionLog, SessionStore } from '../persistence/session-store.js';
import type { Outcome } from '../outcome.js';
import type { RunTrace } from '../trace/run-trace.js';

export interface SessionRecordView {
  sessionId: string;
  header: SessionHeader;
  runs: RecordedRun[];
  checkpoints: CheckpointSummary[];
  warnings: string[];
}
export interface CheckpointSummary {
  id: number;
  at: string;
  state: string;
  runId?: string;
  step: number;
  messageCount: number;
  outcome?: Outcome;
}
export interface RecordedRun {
  runId: string;
  trace: RunTrace;
  timeline: TimelinePoint[];
  modelCalls: ModelCallRecord[];
}
export interface TimelinePoint {
  index: number;
  at: number;
  event: string;
  from: string;
  to: string;
  step: number;
  checkpointId?: number;
}
export interface ModelCallRecord {
  step: number;
  attempt: number;
  startedAt: number;
  durationMs?: number;
  request: { messageCount: number; tools: string[]; settings: Record<string, unknown> };
  response?: {
    text: string;
    reasoning?: string;
    toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
    finishReason?: string;
    usage?: unknown;
  };
  error?: { kind: string; message: string };
}

/** Reads a session's record: the view, or undefined when there is no such session. */
export type OpenSessionRecord = (store: SessionStore, sessionId: string) => Promise<SessionRecordView | undefined>;
/** The messages the model would see at one point of one run. */
export type ContextAt = (log: SessionLog, view: SessionRecordView, runIndex: number, pointIndex: number) => ModelMessage[];
