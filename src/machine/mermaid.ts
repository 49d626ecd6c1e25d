import type { AnyStateMachine } from 'xstate';
import { machineGraph, type GraphNode } from './machine-graph.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';

export interface MermaidOptions {
  /**
   * Machines that states invoke, by `src`, drawn inside the state that invokes them as a region of
   * their own (Mermaid's `--`): the session chart with the run chart it invokes, in one diagram.
   */
  invoked?: Record<string, AnyStateMachine>;
}

/**
 * Renders a state machine as a Mermaid `stateDiagram-v2`, straight from its
 * definition: states, initial states, invoked actors, and every transition
 * with its event, guard and (for run-ending transitions) outcome.
 *
 * @example
 * ```ts
 * import { agentMachine, toMermaid } from 'loopchart/machine';
 * console.log(toMermaid(agentMachine));
 * ```
 */
export function toMermaid(machine: AnyStateMachine, options: MermaidOptions = {}): string {
  parseOptions('toMermaid', z.strictObject({ invoked: z.record(z.string(), z.unknown()).optional() }), options);
  const lines = ['stateDiagram-v2'];
  renderMachine(machine, options, '', '  ', lines);
  return `${lines.join('\n')}\n`;
}

/** One machine's states and transitions, its state names prefixed (`prefix`) so that a nested machine's cannot clash. */
function renderMachine(machine: AnyStateMachine, options: MermaidOptions, prefix: string, indent: string, lines: string[]): void {
  const graph = machineGraph(machine);
  const name = (id: string) => `${prefix}${id.replaceAll('.', '_')}`;
  const children = (parent: string | undefined) => graph.nodes.filter((node) => node.parent === parent);
  const render = (parent: GraphNode | undefined, indent: string) => {
    const nodes = children(parent?.id);
    const initial = parent ? parent.initial : machine.root.initial?.target?.[0]?.path.join('.');
    if (initial) lines.push(`${indent}[*] --> ${name(initial)}`);
    for (const node of nodes) {
      if (node.key !== name(node.id)) lines.push(`${indent}state "${node.key}" as ${name(node.id)}`);
      const nested = node.invokes.filter((src) => options.invoked?.[src] !== undefined);
      if (children(node.id).length > 0 || nested.length > 0) {
        lines.push(`${indent}state ${name(node.id)} {`);
        render(node, `${indent}  `);
        for (const src of nested) {
          const region = `${name(node.id)}__${src}`;
          lines.push(`${indent}  --`);
          lines.push(`${indent}  state "${src} (invoked)" as ${region}`);
          lines.push(`${indent}  state ${region} {`);
          renderMachine(options.invoked![src]!, {}, `${src}__`, `${indent}    `, lines);
          lines.push(`${indent}  }`);
        }
        lines.push(`${indent}}`);
      }
      for (const invoked of node.invokes) if (!nested.includes(invoked)) lines.push(`${indent}${name(node.id)} : invokes ${invoked}`);
    }
    for (const node of nodes) {
      for (const edge of graph.edges.filter((candidate) => candidate.from === node.id)) {
        const label = [edge.event, edge.guard ? `[${edge.guard}]` : '', edge.outcome ? `/ ${edge.outcome}` : ''].filter(Boolean).join(' ');
        lines.push(`${indent}${name(edge.from)} --> ${name(edge.to)} : ${label}`);
      }
    }
  };
  render(undefined, indent);
}
