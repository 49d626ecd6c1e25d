import type { GraphEdge, MachineGraph } from '../machine/machine-graph.js';
import type { RunTrace, TraceTransition } from '../core/run-trace.js';

/** What a run did on the statechart: how often it entered each state and took each transition. */
export interface TraceVisits {
  /** Entries per state id, for leaf states and for the compound states around them. */
  stateVisits: ReadonlyMap<string, number>;
  /** How often each edge of `graph.edges` was taken, by the edge's index. */
  edgeTakes: readonly number[];
  /** The index of the edge that ended the run (the last transition taken), when the graph has it. */
  finalEdge: number | undefined;
  /** Transitions of the trace that match no edge of the graph (a trace from another machine version). */
  unmatched: readonly TraceTransition[];
}

/** The key that identifies a transition in both the graph and the trace. */
function transitionKey(transition: Pick<GraphEdge, 'from' | 'to' | 'event' | 'guard'>): string {
  return JSON.stringify([transition.from, transition.to, transition.event, transition.guard ?? null]);
}

/** `running.llm.calling` → `['running', 'running.llm', 'running.llm.calling']`. */
export function ancestorsAndSelf(stateId: string): string[] {
  const parts = stateId.split('.');
  return parts.map((_, index) => parts.slice(0, index + 1).join('.'));
}

/**
 * Counts the visits of every state and the takes of every transition in a
 * trace. A compound state is visited once each time the run enters it from
 * outside, however long it stays among its children.
 *
 * @example
 * const visits = traceVisits(result.trace!, machineGraph(agentMachine));
 * visits.stateVisits.get('running.toolExec') // 1 for a run with one tool step
 */
export function traceVisits(trace: Pick<RunTrace, 'states' | 'transitions'>, graph: MachineGraph): TraceVisits {
  const stateVisits = new Map<string, number>();
  let previous: string | undefined;
  for (const { state } of trace.states) {
    for (const id of ancestorsAndSelf(state)) {
      const stayed = previous !== undefined && (previous === id || previous.startsWith(`${id}.`));
      if (!stayed) stateVisits.set(id, (stateVisits.get(id) ?? 0) + 1);
    }
    previous = state;
  }

  const edgeIndex = new Map<string, number>();
  graph.edges.forEach((edge, index) => {
    const key = transitionKey(edge);
    if (!edgeIndex.has(key)) edgeIndex.set(key, index);
  });
  const edgeTakes = graph.edges.map(() => 0);
  const unmatched: TraceTransition[] = [];
  let finalEdge: number | undefined;
  for (const transition of trace.transitions) {
    const index = edgeIndex.get(transitionKey(transition));
    if (index === undefined) unmatched.push(transition);
    else edgeTakes[index]!++;
    finalEdge = index;
  }
  return { stateVisits, edgeTakes, finalEdge, unmatched };
}
