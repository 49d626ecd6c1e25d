import type { CallWarning, FinishReason, ModelMessage, SystemModelMessage } from 'ai';
import type { StepResponse } from '../core/events.js';
import type { ModelIdentity } from '../core/model-identity.js';
import type { StepToolCall } from '../core/step.js';
import type { CompactionConfig, CompactionReason } from '../core/compaction-config.js';
import type { UsageMark } from '../context/token-estimate.js';
import { defaultRetryConfig, type RetryConfig } from '../resilience/retry-policy.js';
import { defaultTruncationConfig, type TruncationConfig } from '../resilience/truncate-output.js';
import type { RunError } from '../core/result.js';
import type { DoomStreaks } from '../resilience/doom-loop.js';
import type { ToolAnswer } from '../core/history.js';
import type { MessageHistory } from '../core/message-history.js';
import type { RejectedOutput } from '../actors/output-feedback.js';
import type { LanguageModelUsage } from 'ai';
import type { UsageCost } from '../core/cost.js';

/**
 * Everything the machine knows, as plain JSON data: no functions, no models,
 * no tools (those live in the runtime the machine is provided with), so a
 * snapshot can be persisted, inspected and restored.
 */
export interface AgentContext {
  config: AgentConfig;
  /** The run's history (appending does not copy it: see `MessageHistory`). */
  messages: MessageHistory;
  /** The provider's token count at the end of the last LLM call, for context accounting. */
  usageMark?: UsageMark;
  /** Tool results the model no longer sees (replaced by a marker); the history keeps them. */
  prunedToolCallIds: string[];
  /** Messages waiting to be delivered: steering at the next step boundary, follow-ups when a run would complete. Kept between runs. */
  queues: { steering: ModelMessage[]; followUps: ModelMessage[] };
  /** Present while a run is active. */
  run?: RunState;
}

/** Time limits in milliseconds; each is off when absent. */
export interface TimeoutConfig {
  /** The whole run; then outcome `timeout`. */
  totalMs?: number;
  /** One LLM call, from request to finish; a retryable `timeout` error. */
  stepMs?: number;
  /** From request to the first chunk; a retryable `timeout` error. */
  firstChunkMs?: number;
  /** Between two chunks; a retryable `timeout` error. */
  chunkMs?: number;
  /** One tool call; the model gets an error result and the loop goes on. */
  toolMs?: number;
  /** `toolMs` per tool name. */
  tools?: Record<string, number>;
  /** One hook. */
  hookMs?: number;
}

export interface AgentConfig {
  /** LLM calls per run. */
  maxSteps: number;
  /** Consecutive steps with the same tool call that end the run; 0 disables detection. */
  doomLoopThreshold: number;
  toolExecution: 'parallel' | 'sequential';
  /** Calls of one step beyond this are answered without running. */
  maxToolCallsPerStep: number;
  instructions?: string | SystemModelMessage | SystemModelMessage[];
  retry: RetryConfig;
  timeouts: TimeoutConfig;
  /** What the model sees of a tool result at most; `false` sends results whole. */
  truncation: TruncationConfig | false;
  /** Context compaction; `false` disables it. */
  compaction: CompactionConfig | false;
  /** True when the runtime has an approval policy; steps with tool calls then pass through `approving`. */
  hasApprovalPolicy: boolean;
  /** Whether `stopWhen` conditions are set: a step with tool calls then passes through `checkingStop`. The conditions themselves are an actor. */
  hasStopConditions?: boolean;
  /** What a denial does: the model sees it and goes on, or the run ends `denied`. */
  onDeny: 'continue' | 'stop';
  /** Denies what still waits for an answer after this long. */
  approvalTimeoutMs?: number;
  /** What a doom loop does: end the run, or ask a person whether the repeated call may run. */
  doomLoopAction: 'stop' | 'ask';
  /** How many queued steering messages are delivered at once. */
  steeringMode: 'one-at-a-time' | 'all';
  /** How many queued follow-ups are delivered at once. */
  followUpMode: 'one-at-a-time' | 'all';
}

export interface RunState {
  id: string;
  startedAt: number;
  /** Index in `messages` where this run's messages begin. */
  startIndex: number;
  /** LLM calls made so far in this run. */
  steps: number;
  /** Tool calls executed so far in this run. */
  toolCalls: number;
  usage: LanguageModelUsage;
  /** LanguageModelUsage of the last LLM call alone. */
  stepUsage: LanguageModelUsage;
  /** What the run's finished LLM calls cost, while every token of the run had a known price. */
  cost?: UsageCost;
  /** What the last LLM call alone cost, when its price is known. */
  stepCost?: UsageCost;
  doomStreaks: DoomStreaks;
  /** The text of the last finished LLM call. */
  text: string;
  /** The last final answer parsed with the agent's `output` (JSON data). */
  output?: unknown;
  finishReason?: FinishReason;
  /** The last finished LLM call's raw finish reason, model, response metadata and warnings, for its `finish-step`. */
  stepDetails?: StepDetails;
  /** What the last LLM call ended with; read by the `deciding` guards. */
  step?: StepOutcome;
  /** True between `start-step` and `finish-step`. */
  stepOpen: boolean;
  /** Tool calls of the current step, in call order, and their answers by index. */
  calls: StepToolCall[];
  answers: Array<ToolAnswer | null>;
  /** Index of the next call to start; calls before it have started or been answered without running. */
  nextCall: number;
  /** The approval decisions of the current step's calls, by index; absent when no policy ran. */
  approvals?: ApprovalState[];
  /** When unanswered approvals are denied (`approvalTimeoutMs`). */
  approvalDeadline?: number;
  /** Attempt (1-based) of the current LLM call; retries raise it, a new step resets it. */
  attempt: number;
  /** The step's last answer the agent's `output` rejected: its next attempts are told what did not match (not in the history). */
  rejectedOutput?: RejectedOutput;
  /** The scheduled retry while in `retrying`: the deadline lives here, not only in a timer, so a restored snapshot can re-arm it. */
  retry?: { attempt: number; delayMs: number; resumeAt: number };
  /** Compactions made in this run. */
  compactions: number;
  /** The compaction in progress: why, and the context's size before it. */
  /** The compaction under way; `step` is the step it is for (1-based): the one it precedes, or for an overflow the one it re-calls. */
  compaction?: { reason: CompactionReason; tokensBefore: number; step: number };
  /** Wall-clock deadline of the run (`timeout.totalMs`). */
  deadline?: number;
  /** The prompt as given, until `preparing` has transformed it and it enters the history. */
  prompt?: ModelMessage[];
  /** Each finished step's finish reason, usage, text and calls, kept only while `stopWhen` is set (its conditions read them). */
  stepRecords?: StepRecord[];
  /** Set when the run's tool runner crashed (only a custom one can): every later call of the run is answered with this error. */
  toolRunnerCrash?: string;
  /**
   * Set by `agent.abort`, the run's deadline or a failed session write; the run ends with `outcome`
   * (and `error`) as soon as its current state allows.
   */
  stop?: RunStop;
}

/** What a finished LLM call's `finish-step` reports besides its finish reason and usage. */
export interface StepDetails {
  rawFinishReason?: string;
  model?: ModelIdentity;
  response?: StepResponse;
  warnings?: CallWarning[];
}

/** What the `stopWhen` conditions see of a finished step, besides its tool results (read from the history). */
export interface StepRecord {
  finishReason: FinishReason;
  usage: LanguageModelUsage;
  text: string;
  toolCalls: Array<Pick<StepToolCall, 'toolCallId' | 'toolName' | 'input'>>;
  /** What the step cost, when its model's price is known. */
  cost?: UsageCost;
}

/** Why a run was asked to stop: the first request decides the outcome; `requests` counts them all. */
export interface RunStop {
  outcome: 'aborted' | 'timeout' | 'failed';
  reason: string;
  requests: number;
  error?: RunError;
}

export interface ApprovalState {
  decision: 'allow' | 'deny' | 'ask';
  /** Why a person is asked: the policy said so, or the call repeated into a doom loop. */
  reason: 'policy' | 'doom-loop';
  /** A person's (or the timeout's) answer to an `ask`. */
  answer?: 'approved' | 'denied';
  /** The denial's reason, shown to the model. */
  message?: string;
}

export type StepOutcome =
  | { status: 'finished'; finishReason: FinishReason; toolCalls: StepToolCall[] }
  | { status: 'failed'; error: RunError }
  | { status: 'aborted' };

/** A configuration as given: any field may be left out, and `retry`, `truncation` and `compaction` may be given in part (`withConfigDefaults` completes it). */
export type AgentConfigInput = Partial<Omit<AgentConfig, 'retry' | 'truncation' | 'compaction'>> & {
  retry?: Partial<RetryConfig>;
  truncation?: Partial<TruncationConfig> | false;
  compaction?: (Partial<CompactionConfig> & Pick<CompactionConfig, 'contextWindow'>) | false;
};

export interface AgentMachineInput {
  /** Completed by `withConfigDefaults` (`retry`, `truncation` and `compaction` may be given in part). */
  config?: AgentConfigInput;
  /** The history the machine starts from (copied into a `MessageHistory`; a history is taken as it is). */
  messages?: readonly ModelMessage[] | MessageHistory;
}

export const defaultConfig: AgentConfig = {
  maxSteps: 25,
  doomLoopThreshold: 3,
  toolExecution: 'parallel',
  maxToolCallsPerStep: 128,
  retry: defaultRetryConfig,
  timeouts: {},
  truncation: defaultTruncationConfig,
  compaction: false,
  hasApprovalPolicy: false,
  onDeny: 'continue',
  doomLoopAction: 'stop',
  steeringMode: 'one-at-a-time',
  followUpMode: 'one-at-a-time',
};
