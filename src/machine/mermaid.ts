import type { AnyStateMachine } from 'xstate';
import { machineGraph, type GraphNode } from './machine-graph.js';

/**
 * Renders a state machine as a Mermaid `stateDiagram-v2`, straight from its
 * definition: states, initial states, invoked actors, and every transition
 * with its event, guard and (for run-ending transitions) outcome.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const graph = machineGraph(machine);
  const name = (id: string) => id.replaceAll('.', '_');
  const children = (parent: string | undefined) => graph.nodes.filter((node) => node.parent === parent);
  const lines = ['stateDiagram-v2'];
  const render = (parent: GraphNode | undefined, indent: string) => {
    const nodes = children(parent?.id);
    const initial = parent ? parent.initial : machine.root.initial?.target?.[0]?.path.join('.');
    if (initial) lines.push(`${indent}[*] --> ${name(initial)}`);
    for (const node of nodes) {
      if (node.key !== name(node.id)) lines.push(`${indent}state "${node.key}" as ${name(node.id)}`);
      if (children(node.id).length > 0) {
        lines.push(`${indent}state ${name(node.id)} {`);
        render(node, `${indent}  `);
        lines.push(`${indent}}`);
      }
      for (const invoked of node.invokes) lines.push(`${indent}${name(node.id)} : invokes ${invoked}`);
    }
    for (const node of nodes) {
      for (const edge of graph.edges.filter((candidate) => candidate.from === node.id)) {
        const label = [edge.event, edge.guard ? `[${edge.guard}]` : '', edge.outcome ? `/ ${edge.outcome}` : ''].filter(Boolean).join(' ');
        lines.push(`${indent}${name(edge.from)} --> ${name(edge.to)} : ${label}`);
      }
    }
  };
  render(undefined, '  ');
  return `${lines.join('\n')}\n`;
}
