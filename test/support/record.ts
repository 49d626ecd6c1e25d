import type { Agent, AgentEvent } from '../../src/index.js';

/** Collects every event an agent reports. */
export function recordEvents(agent: Agent): AgentEvent[] {
  const events: AgentEvent[] = [];
  agent.events$.subscribe((event) => events.push(event));
  return events;
}

/** The state values the agent's actor goes through, flattened to dotted leaf names ("running.llm.streaming"). */
export function recordStates(agent: Agent): string[] {
  const states: string[] = [];
  const flatten = (value: unknown, prefix = ''): string =>
    typeof value === 'string'
      ? `${prefix}${value}`
      : Object.entries(value as Record<string, unknown>)
          .map(([key, child]) => flatten(child, `${prefix}${key}.`))
          .join('|');
  states.push(flatten(agent.actor.getSnapshot().value));
  agent.actor.subscribe((snapshot) => {
    const state = flatten(snapshot.value);
    if (states.at(-1) !== state) states.push(state);
  });
  return states;
}

export function eventTypes(events: AgentEvent[]): string[] {
  return events.map((event) => event.type);
}
