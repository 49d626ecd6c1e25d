import type { CallWarning, FinishReason, LanguageModelUsage, ModelMessage, ReasoningOutput, StepResult, ToolSet, TypedToolCall, TypedToolResult } from 'ai';
import type { RunTrace } from './run-trace.js';
import type { UsageCost } from './cost.js';

import type { Outcome, RunError } from './outcome.js';

export type { ErrorKind, Outcome, RunError } from './outcome.js';

/** The result of `agent.run()`. `run` resolves with it for every outcome; it never rejects for loop-level failures. */
export interface RunResult<OUTPUT = unknown> {
  outcome: Outcome;
  /** The final assistant text of the run: the text of its last LLM call. */
  text: string;
  /**
   * The final answer parsed and validated with the agent's `output` (`Output.object({ schema })`):
   * present when the run `completed` with an answer that matched; a mismatch is a failed attempt of
   * kind `invalid-output`.
   */
  output?: OUTPUT;
  /** The whole history after the run. */
  messages: ModelMessage[];
  /** Token usage summed over the run's LLM calls (failed attempts whose stream finished included: they were billed), as the AI SDK's `LanguageModelUsage`: the three totals are always numbers (unreported figures count as 0); a detail the provider never reported stays `undefined`. */
  usage: LanguageModelUsage;
  /**
   * What the run's LLM calls cost at list prices (`@pydantic/genai-prices`), each call priced with
   * the model that made it. Absent, not 0, when a call's price is unknown (an unpriced provider or
   * model, the scripted model, a local server).
   */
  cost?: UsageCost;
  /** LLM calls made in this run (attempts of one call count once). */
  stepCount: number;
  /** Tool calls executed in this run. */
  toolCallCount: number;
  /**
   * The run's steps as the AI SDK's `StepResult`s (content, text, reasoning, tool calls and results,
   * finish reason, usage, warnings, model and response of each LLM call), as `generateText` gives
   * them. Built from the events by the agent that ran the steps: a run resumed after a restart has
   * the steps made since; `agentMachine` alone leaves it empty.
   */
  steps: Array<StepResult<ToolSet>>;
  /** The tool calls of every step, as the AI SDK's `result.toolCalls`. */
  toolCalls: Array<TypedToolCall<ToolSet>>;
  /** The tool results of every step, as the AI SDK's `result.toolResults` (errors and denials are in `steps[n].content`). */
  toolResults: Array<TypedToolResult<ToolSet>>;
  /** What the run added to the history after its prompt: the assistant and tool messages, as the AI SDK's `responseMessages`. */
  responseMessages: ModelMessage[];
  /** The last step's reasoning, as the AI SDK's `result.reasoning` and `reasoningText`. */
  reasoning: ReasoningOutput[];
  reasoningText: string | undefined;
  /** Every step's call warnings (the provider's), as the AI SDK's `result.warnings`. */
  warnings: CallWarning[];
  /** The finishReason of the last LLM call, when one finished. */
  finishReason?: FinishReason;
  durationMs: number;
  /** Present for `failed`, and for other outcomes where it explains the stop. */
  error?: RunError;
  /** What the run did, state by state and call by call (see `RunTrace`). */
  trace?: RunTrace;
}
