import type { LanguageModel, ToolSet } from 'ai';
import type { StepFunction } from './actors/step.js';
import type { AgentEvent } from './events.js';

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
  /** Receives per-chunk events. Must not throw. */
  emit: (event: AgentEvent) => void;
}
