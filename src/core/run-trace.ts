import type { CallWarning, FinishReason } from 'ai';
import type { CompactionReason } from './compaction-config.js';
import type { HookName } from './callbacks.js';
import type { LanguageModelUsage } from 'ai';
import type { Outcome, RunError } from './outcome.js';

/** The trace format version this loopchart writes. */
export const TRACE_VERSION = 1;

/**
 * What one run did, as data: every state entered and left, every transition
 * taken, each LLM call, tool call, retry, compaction and hook, with times in
 * milliseconds from the run's start. On `result.trace` and the `trace` event;
 * `loopchart run --trace` saves it and `loopchart report` draws it.
 */
export interface RunTrace {
  version: typeof TRACE_VERSION;
  runId: string;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  outcome: Outcome;
  error?: RunError;
  /** Each state the machine was in, leaf states as dotted paths, in order; transient ones (`deciding`, `nextStep`) included. */
  states: TraceState[];
  /** Each transition taken, in order. */
  transitions: TraceTransition[];
  steps: TraceStep[];
  retries: TraceRetry[];
  compactions: TraceCompaction[];
  hooks: TraceHook[];
}

export interface TraceState {
  state: string;
  enteredAt: number;
  leftAt: number;
}

export interface TraceTransition {
  from: string;
  to: string;
  event: string;
  guard?: string;
  at: number;
}

export interface TraceStep {
  step: number;
  /** Attempts made for this step (retries included). */
  attempts: number;
  startedAt: number;
  /** From the (last) attempt's request to its first chunk. */
  firstChunkMs?: number;
  /** The whole step, from its start to its end: model call(s), retry waits, approvals and tools. */
  durationMs?: number;
  /** Time in the model call itself (the `llm` state), every attempt summed; retry waits, approvals and tools excluded. */
  modelMs?: number;
  /** When the step's last model call ended (run-relative ms). */
  modelEndedAt?: number;
  finishReason?: FinishReason;
  usage: LanguageModelUsage;
  text: string;
  /** The reasoning the model showed in this step (its kept attempt), when it showed any. */
  reasoning?: string;
  toolCalls: TraceToolCall[];
  /** Error parts the provider's stream reported in this step before it went on to finish (see the `stream-warning` event). */
  streamWarnings?: RunError[];
  /** The provider's call warnings (a setting it ignored, a response format it cannot honour), each distinct one once, from every attempt. */
  warnings?: CallWarning[];
}

export interface TraceToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  startedAt: number;
  durationMs?: number;
  isError?: boolean;
  /** The start of the output, as text (at most 2,000 characters). */
  outputPreview?: string;
}

export interface TraceRetry {
  step: number;
  attempt: number;
  delayMs: number;
  error: RunError;
  at: number;
}

export interface TraceCompaction {
  reason: CompactionReason;
  kind?: 'pruned' | 'summarised';
  tokensBefore: number;
  tokensAfter?: number;
  startedAt: number;
  durationMs?: number;
}

export interface TraceHook {
  hook: HookName;
  index: number;
  step: number;
  startedAt: number;
  durationMs: number;
  ok: boolean;
  message?: string;
}

/** When and how long a hook ran, for the run trace. */
export interface HookTiming {
  runId: string;
  step: number;
  hook: HookName;
  index: number;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  ok: boolean;
  message?: string;
}
