import type { FinishReason, LanguageModel, ModelMessage, SystemModelMessage, ToolSet } from 'ai';
import type { StepToolCall } from './actors/step.js';
import type { LanguageModelUsage } from 'ai';

type Instructions = string | SystemModelMessage | SystemModelMessage[] | undefined;

interface HookScope {
  runId: string;
  /** The LLM call (1-based, per run) this hook runs for. */
  step: number;
}

export interface BeforeLLMCallArgs extends HookScope {
  attempt: number;
  messages: ModelMessage[];
  instructions: Instructions;
  tools: ToolSet;
  model: LanguageModel;
}

/** Replacements for this one call: a model with a refreshed key, a stronger model after step N, fewer tools, … */
export interface LLMCallReplacements {
  model?: LanguageModel;
  messages?: ModelMessage[];
  instructions?: Instructions;
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
 * Hooks run in order, each under `timeout.hookMs`. A hook that throws or
 * times out is reported as a `hook-error` event and skipped — the loop goes
 * on — except that a failing `beforeToolCall` blocks its call (fail closed).
 *
 * @example
 * ```ts
 * createAgent({
 *   model,
 *   hooks: {
 *     beforeLLMCall: [({ step }) => (step > 5 ? { model: strongerModel } : undefined)],
 *     beforeToolCall: [({ toolCall }) => (toolCall.toolName === 'bash' ? { block: 'no shell here' } : undefined)],
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
