import type { LanguageModel, ModelMessage, Output, PrepareStepFunction, StepResult, ToolSet } from 'ai';
import type { AnyActorRef } from 'xstate';
import type { StepFunction } from './step.js';
import type { AgentEvent } from './events.js';
import type { AgentHooks, ContextTransform } from './callbacks.js';

export type { ContextTransform } from './callbacks.js';
import type { HookTiming } from './run-trace.js';

/**
 * What the machine works with but does not keep in its (serialisable)
 * context: the model, the tools, the step implementation, and the sink for
 * events that do not cost a transition (text and reasoning deltas, tool
 * updates).
 */
export interface AgentRuntime {
  model: LanguageModel;
  tools: ToolSet;
  step: StepFunction;
  hooks: AgentHooks;
  /** How deep this agent runs in a tree of sub-agents (0 at the top). */
  depth?: number;
  /** Receives every hook's timing, for the run trace. Must not throw. */
  traceHook?: (timing: HookTiming) => void;
  /** Runs before every LLM call on what the model will see (trim, inject, redact); the stored history is not changed. */
  transformContext?: ContextTransform;
  /** The agent's `output` option: sent with every call, and the final answer parsed with it. */
  output?: Output.Output;
  /** Receives the events that do not go through a transition (deltas, tool updates, hook errors). Must not throw. */
  emit: (event: AgentEvent) => void;
  /** Whether anything hears the events `emit` gives: a subscriber to the agent's `events$` (absent: taken as heard). */
  isHeard?: () => boolean;
  /**
   * Runs a tool's `execute` (hooks excluded) and returns what it returns: telemetry runs it inside
   * the call's `execute_tool` span, so the tool's own spans are its children. Must not throw itself.
   */
  runToolCall?: <T>(call: ToolCallIdentity, execute: () => Promise<T>) => Promise<T>;
  /**
   * Waited for before every model call (compaction's included) and every tool's `execute`: resolves
   * when the effect may start. A rejection means the run has already been told to stop (a session
   * write was refused, the session's lease is lost): the effect is not started.
   */
  admit?: (effect: 'model-call' | 'tool-call') => Promise<void>;
  /** The AI SDK's `prepareStep` (`AgentOptions.prepareStep`), called before each step's model call. */
  prepareStep?: PrepareStepFunction<ToolSet>;
  /** The run's steps so far as the AI SDK's `StepResult`s, and the messages they added to the history, for `prepareStep`. */
  runSteps?: () => { steps: Array<StepResult<ToolSet>>; responseMessages: ModelMessage[] };
  /** Where the sub-agents this agent's tools start live; without it (the agent machine run on its own), under the tool runner. */
  subagents?: SubagentHome;
}

/**
 * Where an agent's sub-agents live: their actors are children of its session, which outlives them.
 * The tool runner does not: an abort stops it at once, while the sub-agent it aborts ends a moment
 * later, and XState tells a child's end to its parent.
 */
export interface SubagentHome {
  /** The agent's session actor: the parent of each sub-agent's actor. */
  parent(): AnyActorRef | undefined;
  /** Keeps the session from closing until `ending` settles (a sub-agent's run and its disposal). */
  hold(ending: Promise<unknown>): void;
}

/** Which tool call of which run and step. */
export interface ToolCallIdentity {
  runId: string;
  step: number;
  toolCallId: string;
  toolName: string;
}

