import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** One state of the statechart, named by its dotted path (`running.llm.calling`). */
export interface GraphNode {
  id: string;
  key: string;
  parent?: string;
  /** The initial child, for compound states. */
  initial?: string;
  /** Actors this state invokes. */
  invokes: string[];
  /** True when the state holds no work and leaves at once (only eventless transitions). */
  transient: boolean;
}

/** One transition: event (or `always`), guard, and for run-ending transitions the outcome. */
export interface GraphEdge {
  from: string;
  to: string;
  event: string;
  guard?: string;
  outcome?: string;
}

export interface MachineGraph {
  root: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The statechart as plain data, read from the machine definition. Both the Mermaid diagram and the trace report draw from it. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const visit = (node: AnyStateNode) => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      const initial = child.initial?.target?.[0] as AnyStateNode | undefined;
      const transitions = [...[...child.transitions.values()].flat(), ...(child.always ?? [])];
      nodes.push({
        id: pathOf(child),
        key: child.key,
        ...(node.path.length > 0 ? { parent: pathOf(node) } : {}),
        ...(initial ? { initial: pathOf(initial) } : {}),
        invokes: child.invoke.map((invoke) => (typeof invoke.src === 'string' ? invoke.src : invoke.id)),
        transient: (child.always?.length ?? 0) > 0 && child.transitions.size === 0 && Object.keys(child.states).length === 0,
      });
      for (const transition of transitions) {
        const guard = guardName(transition.guard);
        const outcome = outcomeOf(transition.actions);
        for (const target of (transition.target ?? []) as AnyStateNode[]) {
          edges.push({
            from: pathOf(child),
            to: pathOf(target),
            event: transition.eventType === '' ? 'always' : String(transition.eventType),
            ...(guard ? { guard } : {}),
            ...(outcome ? { outcome } : {}),
          });
        }
      }
      visit(child);
    }
  };
  visit(machine.root);
  return { root: machine.root.id, nodes, edges };
}

function pathOf(node: AnyStateNode): string {
  return node.path.join('.');
}

function guardName(guard: unknown): string | undefined {
  if (!guard) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard) return String((guard).type);
  return 'guard';
}

function outcomeOf(actions: readonly unknown[]): string | undefined {
  for (const action of actions) {
    if (typeof action !== 'object' || action === null) continue;
    const { type, params } = action as { type?: unknown; params?: unknown };
    if (type === 'endStoppedRun') return 'aborted or timeout';
    if (type !== 'endRun') continue;
    if (params && typeof params === 'object' && 'outcome' in params) return String((params).outcome);
    return 'outcome';
  }
  return undefined;
}
