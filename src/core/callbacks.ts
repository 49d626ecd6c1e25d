/**
 * Every function an app hands to loopchart, and its contract, in one place: when it is called,
 * what it gets (an `AbortSignal` in every case), and what a throw, a hang or a wrong answer does.
 * None of them can break the loop: each failure is caught and turned into the outcome stated here.
 *
 * | callback            | a throw (or a bad answer)                         | a hang                                  |
 * |---------------------|---------------------------------------------------|-----------------------------------------|
 * | `transformPrompt`   | the run ends `failed` (`invalid-request`)          | stopped by abort / `timeout.totalMs`    |
 * | `transformContext`  | the LLM call fails (fail closed: nothing is sent)  | stopped by abort / the call's limits    |
 * | `beforeLLMCall`     | a `hook-error` event; the hook is skipped           | `timeout.hookMs`, then as a throw       |
 * | `afterLLMCall`      | a `hook-error` event; the hook is skipped           | `timeout.hookMs`, then as a throw       |
 * | `beforeToolCall`    | a `hook-error` event; the call is blocked (closed)  | `timeout.hookMs`, then as a throw       |
 * | `afterToolCall`     | a `hook-error` event; the result is kept            | `timeout.hookMs`, then as a throw       |
 * | `approval` function | the call is denied (fail closed)                    | stopped by abort / `approvalTimeoutMs`  |
 * | `stopWhen`          | the run ends `failed` (`invalid-request`)          | stopped by abort / `timeout.totalMs`    |
 * | a tool's `execute`  | an error result the model sees; the loop goes on    | `timeout.toolMs`, then as a throw       |
 *
 * Every signal is aborted when the run is aborted or times out, and a hook's also when its own
 * `timeout.hookMs` passes: a callback that does I/O should pass it on (to `fetch`, a child process, …)
 * so the work stops with the run.
 */
import type { FinishReason, Instructions, LanguageModel, LanguageModelUsage, ModelMessage, ToolSet } from 'ai';
import type { StepToolCall } from './step.js';

/** What every hook gets besides its own arguments. */
export interface HookScope {
  runId: string;
  /** The LLM call (1-based, per run) this hook runs for. */
  step: number;
  /** Aborted when the run stops or this hook's `timeout.hookMs` passes. */
  signal: AbortSignal;
}

export interface BeforeLLMCallArgs extends HookScope {
  attempt: number;
  messages: ModelMessage[];
  instructions: Instructions | undefined;
  tools: ToolSet;
  model: LanguageModel;
}

/** Replacements for this one call: a model with a refreshed key, a stronger model after step N, fewer tools, … */
export interface LLMCallReplacements {
  model?: LanguageModel;
  messages?: ModelMessage[];
  instructions?: Instructions | undefined;
  tools?: ToolSet;
}

export interface AfterLLMCallArgs extends HookScope {
  attempt: number;
  text: string;
  toolCalls: StepToolCall[];
  finishReason: FinishReason;
  usage: LanguageModelUsage;
}

export interface BeforeToolCallArgs extends HookScope {
  toolCall: StepToolCall;
  messages: ModelMessage[];
}

/** `block` gives the model an error result with that reason instead of running the tool; `input` replaces the call's input (validated again). */
export type BeforeToolCallDecision = { block: string } | { input: unknown };

export interface AfterToolCallArgs extends HookScope {
  toolCall: StepToolCall;
  result: { output: unknown; isError: boolean };
}

/** A replacement result: what the model (and the `tool-result` event) gets instead. */
export interface ToolResultReplacement {
  output: unknown;
  isError?: boolean;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Hooks run in order, each under `timeout.hookMs`, each with a signal. A hook that throws or
 * times out is reported as a `hook-error` event and skipped — the loop goes on — except that a
 * failing `beforeToolCall` blocks its call (fail closed).
 *
 * @example
 * ```ts
 * createAgent({
 *   model,
 *   hooks: {
 *     beforeLLMCall: [({ step }) => (step > 5 ? { model: strongerModel } : undefined)],
 *     beforeToolCall: [({ toolCall }) => (toolCall.toolName === 'bash' ? { block: 'no shell here' } : undefined)],
 *     afterToolCall: [async ({ toolCall, result, signal }) => void (await audit(toolCall, result, { signal }))],
 *   },
 * });
 * ```
 */
export interface AgentHooks {
  beforeLLMCall?: Array<(args: BeforeLLMCallArgs) => MaybePromise<LLMCallReplacements | void | undefined>>;
  afterLLMCall?: Array<(args: AfterLLMCallArgs) => MaybePromise<void>>;
  beforeToolCall?: Array<(args: BeforeToolCallArgs) => MaybePromise<BeforeToolCallDecision | void | undefined>>;
  afterToolCall?: Array<(args: AfterToolCallArgs) => MaybePromise<ToolResultReplacement | void | undefined>>;
}

export type HookName = keyof AgentHooks;

export type ApprovalDecision = 'allow' | 'deny' | 'ask';

export interface ApprovalContext {
  runId: string;
  step: number;
  messages: ModelMessage[];
  /** Aborted when the run stops (abort, `timeout.totalMs`) while the policy decides. */
  signal: AbortSignal;
}

/**
 * An approval policy as a function: decides one call, and may be async. A throw, or an answer
 * other than `allow`, `deny` or `ask`, denies the call (fail closed) with a message the model sees.
 *
 * @example
 * ```ts
 * approval: async (call, { signal }) => ((await isTrusted(call.input, { signal })) ? 'allow' : 'ask')
 * ```
 */
export type ApprovalFunction = (toolCall: StepToolCall, context: ApprovalContext) => ApprovalDecision | Promise<ApprovalDecision>;

/**
 * Runs before every LLM call on what the model will see (trim, inject, redact) without changing the
 * stored history. A throw fails the call (fail closed): nothing is sent. See `AgentOptions.transformContext`.
 */
export type ContextTransform = (messages: ModelMessage[], options: { signal: AbortSignal }) => ModelMessage[] | Promise<ModelMessage[]>;

/**
 * Runs once per run on the prompt's messages before they enter the history (for example
 * `atMentions`). A throw, or a result that is not a list of messages, ends the run `failed`.
 */
export type PromptTransform = (messages: ModelMessage[], options?: { signal?: AbortSignal }) => Promise<ModelMessage[]>;
