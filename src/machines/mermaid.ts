import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * Renders a state machine as a Mermaid `stateDiagram-v2`, straight from its
 * definition: states, initial states, invoked actors, and every transition
 * with its event, guard and (for run-ending transitions) outcome.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  renderChildren(machine.root, lines, '  ');
  return `${lines.join('\n')}\n`;
}

function nameOf(node: AnyStateNode): string {
  return node.path.length === 0 ? node.id : node.path.join('_');
}

function renderChildren(parent: AnyStateNode, lines: string[], indent: string): void {
  const children = Object.values(parent.states) as AnyStateNode[];
  const initialTarget = parent.initial?.target?.[0] as AnyStateNode | undefined;
  if (initialTarget) lines.push(`${indent}[*] --> ${nameOf(initialTarget)}`);
  for (const child of children) {
    const name = nameOf(child);
    if (child.key !== name) lines.push(`${indent}state "${child.key}" as ${name}`);
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state ${name} {`);
      renderChildren(child, lines, `${indent}  `);
      lines.push(`${indent}}`);
    }
    for (const invoke of child.invoke) lines.push(`${indent}${name} : invokes ${typeof invoke.src === 'string' ? invoke.src : invoke.id}`);
  }
  for (const child of children) renderTransitions(child, lines, indent);
}

function renderTransitions(node: AnyStateNode, lines: string[], indent: string): void {
  const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  for (const transition of transitions) {
    const targets = (transition.target ?? []) as AnyStateNode[];
    if (targets.length === 0) continue;
    const event = transition.eventType === '' ? 'always' : String(transition.eventType);
    const guard = guardName(transition.guard);
    const outcome = outcomeOf(transition.actions);
    const label = [event, guard ? `[${guard}]` : '', outcome ? `/ ${outcome}` : ''].filter(Boolean).join(' ');
    for (const target of targets) lines.push(`${indent}${nameOf(node)} --> ${nameOf(target)} : ${label}`);
  }
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
