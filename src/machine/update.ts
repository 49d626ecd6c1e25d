import type { AgentEvent } from '../core/events.js';
import type { AgentContext, RunState } from './context.js';

/**
 * A context update as data: the next context plus the events it reports.
 * Updates are pure functions; the machine's actions only wire them to
 * `assign` and `emit`.
 */
export interface Update {
  context: AgentContext;
  events: AgentEvent[];
}

export const unchanged = (context: AgentContext): Update => ({ context, events: [] });

export function activeRun(context: AgentContext): RunState {
  if (context.run === undefined) throw new Error('loopchart: no active run (machine invariant broken)');
  return context.run;
}

export function withRun(context: AgentContext, run: RunState, events: AgentEvent[] = []): Update {
  return { context: { ...context, run }, events };
}
