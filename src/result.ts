import type { FinishReason, ModelMessage } from 'ai';
import type { LanguageModelUsage } from 'ai';
import type { RunTrace } from './trace/run-trace.js';

/** How a run ended. Every run ends in exactly one outcome. */
export type Outcome =
  | 'completed'
  | 'max-steps'
  | 'doom-loop'
  | 'aborted'
  | 'failed'
  | 'context-limit'
  | 'content-filter'
  | 'timeout'
  | 'denied';

/**
 * What went wrong, as data. `kind` classifies the failure; later policies
 * (retries) key on it.
 */
export type ErrorKind =
  | 'rate-limit'
  | 'overloaded'
  | 'server'
  | 'network'
  | 'stream'
  | 'timeout'
  | 'context-overflow'
  | 'auth'
  | 'invalid-request'
  | 'invalid-response'
  | 'aborted'
  /** The session store could not write a step boundary (disk full, read-only, deleted, another writer): the run stops rather than go on undurably. */
  | 'session-write'
  | 'unknown';

export interface RunError {
  kind: ErrorKind;
  message: string;
  /** HTTP status of a provider error, when there was one. */
  status?: number;
  /** The wait the provider asked for (`retry-after-ms` / `retry-after`), when it did. */
  retryAfterMs?: number;
  /** `false` when the provider said a retry cannot succeed (e.g. OpenAI's `insufficient_quota`); such an error is never retried. */
  retryable?: boolean;
}

/** The result of `agent.run()`. `run` resolves with it for every outcome; it never rejects for loop-level failures. */
export interface RunResult {
  outcome: Outcome;
  /** The final assistant text of the run: the text of its last LLM call. */
  text: string;
  /** The whole history after the run. */
  messages: ModelMessage[];
  /** Token usage summed over the run's LLM calls, as the AI SDK's `LanguageModelUsage`: the three totals are always numbers (unreported figures count as 0); a detail the provider never reported stays `undefined`. */
  usage: LanguageModelUsage;
  /** LLM calls made in this run. */
  steps: number;
  /** Tool calls executed in this run. */
  toolCalls: number;
  /** The finishReason of the last LLM call, when one finished. */
  finishReason?: FinishReason;
  durationMs: number;
  /** Present for `failed`, and for other outcomes where it explains the stop. */
  error?: RunError;
  /** What the run did, state by state and call by call (see `RunTrace`). */
  trace?: RunTrace;
}
