import { agentMachine } from '../machine/agent-machine.js';
import { toMermaid } from '../machine/mermaid.js';
import { sessionMachine } from '../session/session-machine.js';
import type { TextSink } from './redact.js';

/** `loopchart chart`: the session statechart, with the run chart it invokes drawn inside it, as a Mermaid `stateDiagram-v2`. */
export function chartCommand(stdout: TextSink): number {
  stdout.write(sessionChartMermaid());
  return 0;
}

/** The session chart with the run chart inside the state that invokes it. */
export function sessionChartMermaid(): string {
  return toMermaid(sessionMachine, { invoked: { runChart: agentMachine } });
}
