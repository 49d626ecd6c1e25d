import { agentMachine } from '../machine/agent-machine.js';
import { toMermaid } from '../machine/mermaid.js';
import type { TextSink } from './redact.js';

/** `loopchart chart`: the agent statechart as a Mermaid `stateDiagram-v2`. */
export function chartCommand(stdout: TextSink): number {
  stdout.write(toMermaid(agentMachine));
  return 0;
}
