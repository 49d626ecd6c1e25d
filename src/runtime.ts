import type { LanguageModel, ToolSet } from 'ai';
import type { StepFunction } from './actors/step.js';
import type { AgentEvent } from './events.js';
import type { AgentHooks } from './hooks.js';

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
  /** Receives the events that do not go through a transition (deltas, tool updates, hook errors). Must not throw. */
  emit: (event: AgentEvent) => void;
}
