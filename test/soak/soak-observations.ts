/**
 * What a soak run saw, as plain data for the checks (`checkSoak`): what the workers wrote as it
 * happened, what the harness did and when, and what the store, DBOS and Redis held at the end.
 * Times are milliseconds since the Unix epoch, all from this machine's clock.
 */
import type { SessionInput } from '../../src/scale/advance-session.js';
import type { SessionRecord } from '../../src/persistence/session-store.js';
import type { ProxyTarget } from './soak-schedule.js';

/**
 * One line a worker appended to its observations file. `epoch` is the lease epoch of the latest
 * event of that session (or tool call) this process published: a run resumed straight into a
 * tool has published none yet, so it can be the previous attempt's.
 */
export type WorkerObservationBody =
  | { kind: 'ready' }
  | { kind: 'model-call'; session: string; epoch: number | undefined; tag: string | undefined; done: number | undefined }
  /** `alongside`: tool executions of the same session already running in this process. */
  | { kind: 'tool-start'; session: string; toolCallId: string; epoch: number | undefined; alongside: number }
  /** The tool's work is done: its effect happened (once per line). */
  | { kind: 'effect'; session: string; toolCallId: string; epoch: number | undefined; started: number }
  | { kind: 'recovered'; deadWorker: string; workflows: string[] };

export type WorkerObservation = WorkerObservationBody & { worker: string; pid: number; t: number };

export interface WorkerLife {
  id: string;
  slot: number;
  pid: number;
  startedAt: number;
  readyAt?: number;
  exit?: { at: number; code: number | null; signal: string | null; byHarness: boolean; output: string };
}

export interface SentInput {
  requestId: string;
  sessionId: string;
  input: SessionInput;
  /** When the harness first tried to send it. */
  at: number;
  attempts: number;
  /** When `sessionClient.send` resolved: from then on the input is accepted. */
  acceptedAt?: number;
  /** The turn `send` said takes it. */
  turn?: string;
  /** Why it could not be sent at all (the last attempt's error), when it never was. */
  error?: string;
}

/** What the harness did, with the times it did it. */
export interface HarnessLog {
  /** Schedule time 0. */
  startedAt: number;
  workers: WorkerLife[];
  kills: Array<{ worker: string; at: number }>;
  pauses: Array<{ worker: string; from: number; to: number }>;
  windows: Array<{ target: ProxyTarget; kind: 'cut' | 'stall'; mode?: 'reset' | 'blackhole'; from: number; to: number }>;
  sends: SentInput[];
}

export interface TurnState {
  workflowId: string;
  sessionId: string;
  requestId: string;
  inputType: string;
  /** DBOS's status: PENDING, ENQUEUED, SUCCESS, ERROR, CANCELLED, MAX_RECOVERY_ATTEMPTS_EXCEEDED. */
  status: string;
  /** From the turn's summary (status SUCCESS). */
  rejected?: Array<{ requestId: string; reason: string }>;
  outcome?: string;
  error?: string;
}

/** What the store, DBOS and Redis hold after the quiet period. */
export interface FinalState {
  /** `records` undefined: no such session in the store. */
  sessions: Array<{ sessionId: string; records: SessionRecord[] | undefined }>;
  turns: TurnState[];
  /** Each session's Redis stream, in stream order. */
  streams: Array<{ sessionId: string; entries: Array<{ id: string; epoch: number; type: string }> }>;
  /** Whether every turn ended (or waits for a person) before the quiet period's time ran out. */
  drained: boolean;
}

export interface SoakObservations {
  leaseTtlMs: number;
  harness: HarnessLog;
  workers: WorkerObservation[];
  final: FinalState;
}
