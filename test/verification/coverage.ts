import type { AnyStateMachine, AnyStateNode, InspectionEvent, StateValue } from 'xstate';
import { machineGraph } from '../../src/machine/machine-graph.js';

/**
 * State and transition coverage of a statechart, measured on a running actor
 * through XState's inspection API (`@xstate.microstep` events carry the
 * transitions each microstep took).
 */

/** The root state node's name in transition keys (its path is empty). */
export const ROOT = '(root)';
/** The target of a transition without one (it stays in its state and only runs actions). */
export const NO_TARGET = '(no target)';

export interface TransitionId {
  from: string;
  to: string;
  event: string;
  guard?: string;
}

/** `from --event [guard]--> to`, the same for a definition, a `machineGraph` edge and a taken transition. */
export function transitionKey({ from, to, event, guard }: TransitionId): string {
  return `${from} --${event}${guard ? ` [${guard}]` : ''}--> ${to}`;
}

function pathOf(node: AnyStateNode): string {
  return node.path.length === 0 ? ROOT : node.path.join('.');
}

/** As `machineGraph` names guards. */
function guardName(guard: unknown): string | undefined {
  if (!guard) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return 'guard';
}

interface TransitionLike {
  source: AnyStateNode;
  target?: readonly AnyStateNode[] | undefined;
  eventType: string;
  guard?: unknown;
}

function idsOf(transition: TransitionLike): TransitionId[] {
  const guard = guardName(transition.guard);
  const event = transition.eventType === '' ? 'always' : transition.eventType;
  const targets = transition.target && transition.target.length > 0 ? transition.target.map(pathOf) : [NO_TARGET];
  return targets.map((to) => ({ from: pathOf(transition.source), to, event, ...(guard ? { guard } : {}) }));
}

/**
 * Every transition the machine defines, the root's and the targetless ones
 * included (`machineGraph` draws only transitions with a target).
 */
export function definedTransitions(machine: AnyStateMachine): TransitionId[] {
  const transitions: TransitionId[] = [];
  const visit = (node: AnyStateNode) => {
    const own = [...[...node.transitions.values()].flat(), ...(node.always ?? [])] as TransitionLike[];
    for (const transition of own) transitions.push(...idsOf(transition));
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  return transitions;
}

/** What coverage is measured against: the states and edges of `machineGraph`, and every defined transition. */
export function coverageTargets(machine: AnyStateMachine) {
  const graph = machineGraph(machine);
  return {
    states: graph.nodes.map((node) => node.id),
    edges: graph.edges.map((edge) => transitionKey({ from: edge.from, to: edge.to, event: edge.event, ...(edge.guard ? { guard: edge.guard } : {}) })),
    transitions: definedTransitions(machine).map(transitionKey),
  };
}

/** Every state path a state value is in: `{ running: { llm: 'calling' } }` is in `running`, `running.llm` and `running.llm.calling`. */
export function activePaths(value: StateValue, prefix = ''): string[] {
  if (typeof value === 'string') return [`${prefix}${value}`];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...(child ? activePaths(child, `${prefix}${key}.`) : [])]);
}

/** Collects the states entered and the transitions taken by machine actors it inspects. */
export class CoverageRecorder {
  readonly states = new Set<string>();
  readonly transitions = new Set<string>();
  /** Transitions taken in order since the last `drain()`. */
  private recent: string[] = [];

  readonly inspect = (event: InspectionEvent): void => {
    if (event.type !== '@xstate.microstep') return;
    const { snapshot } = event as { snapshot: { value?: StateValue } };
    if (snapshot.value !== undefined) for (const path of activePaths(snapshot.value)) this.states.add(path);
    for (const transition of (event as unknown as { _transitions: TransitionLike[] })._transitions) {
      for (const id of idsOf(transition)) {
        const key = transitionKey(id);
        this.transitions.add(key);
        this.recent.push(key);
      }
    }
  };

  noteState(value: StateValue): void {
    for (const path of activePaths(value)) this.states.add(path);
  }

  /** The transitions taken since the last call. */
  drain(): string[] {
    const recent = this.recent;
    this.recent = [];
    return recent;
  }
}

export interface CoverageReport {
  states: { covered: number; total: number; missing: string[] };
  edges: { covered: number; total: number; missing: string[] };
  transitions: { covered: number; total: number; missing: string[] };
}

export function coverageReport(machine: AnyStateMachine, recorder: CoverageRecorder): CoverageReport {
  const targets = coverageTargets(machine);
  const measure = (all: string[], covered: Set<string>) => {
    const missing = all.filter((item) => !covered.has(item));
    return { covered: all.length - missing.length, total: all.length, missing };
  };
  return {
    states: measure(targets.states, recorder.states),
    edges: measure(targets.edges, recorder.transitions),
    transitions: measure(targets.transitions, recorder.transitions),
  };
}
