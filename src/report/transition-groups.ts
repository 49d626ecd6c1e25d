import type { GraphEdge, MachineGraph } from '../machine/machine-graph.js';

/** One transition of a group: the edge and its index in `graph.edges`. */
export interface GroupedTransition {
  edge: GraphEdge;
  index: number;
}

/** All transitions between the same two states, drawn as one arrow with one line of label per transition. */
export interface TransitionGroup {
  from: string;
  to: string;
  transitions: GroupedTransition[];
}

/**
 * The graph's transitions grouped by source and target, in the order the
 * graph lists them: `deciding → idle` alone has a dozen guarded transitions,
 * and one arrow with a dozen label lines reads better than a dozen arrows.
 *
 * @example
 * groupTransitions(machineGraph(agentMachine)).find((group) => group.from === 'running.deciding' && group.to === 'idle')?.transitions.length // 12
 */
export function groupTransitions(graph: MachineGraph): TransitionGroup[] {
  const groups = new Map<string, TransitionGroup>();
  graph.edges.forEach((edge, index) => {
    const key = JSON.stringify([edge.from, edge.to]);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { from: edge.from, to: edge.to, transitions: [] }));
    group.transitions.push({ edge, index });
  });
  return [...groups.values()];
}

/**
 * A transition's label: its event, its guard in brackets, and the outcome of a
 * run-ending transition after a slash (the notation of the Mermaid chart).
 *
 * @example
 * transitionLabel({ from: 'running.deciding', to: 'idle', event: 'always', guard: 'isDoomLoop', outcome: 'doom-loop' }) // 'always [isDoomLoop] / doom-loop'
 */
export function transitionLabel(edge: GraphEdge): string {
  return [edge.event, edge.guard ? `[${edge.guard}]` : '', edge.outcome ? `/ ${edge.outcome}` : ''].filter(Boolean).join(' ');
}
