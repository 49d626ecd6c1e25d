import { agentMachine } from '../machine/agent-machine.js';
import { machineGraph } from '../machine/machine-graph.js';
import { renderTraceReport } from '../report/index.js';
import type { RunTrace } from '../core/run-trace.js';
import { writeOutputFile } from './output-files.js';

export interface RunArtifacts {
  /** `--trace FILE` */
  trace?: string;
  /** `--report FILE` */
  report?: string;
}

/**
 * Writes the trace (`--trace`) and the HTML report (`--report`) of a run (the
 * agent, given the run's secrets, has redacted them from its trace). Returns a line for people about each file written,
 * and, when there is no trace to write, why.
 *
 * @example
 * await writeRunArtifacts({ trace: 'run.json', report: 'run.html' }, result.trace, { title: 'demo.yaml' })
 * // { written: ['trace: run.json', 'report: run.html'] }
 */
export async function writeRunArtifacts(
  files: RunArtifacts,
  trace: RunTrace | undefined,
  { title }: { title: string },
): Promise<{ written: string[]; missing?: string }> {
  if (files.trace === undefined && files.report === undefined) return { written: [] };
  if (!trace) {
    return { written: [], missing: 'no trace to write: the run ended before it reached the statechart, or finished a run another process had started' };
  }
  const lines: string[] = [];
  if (files.trace !== undefined) {
    await writeOutputFile('--trace', files.trace, `${JSON.stringify(trace, null, 2)}\n`);
    lines.push(`trace: ${files.trace}`);
  }
  if (files.report !== undefined) {
    await writeOutputFile('--report', files.report, renderTraceReport(trace, machineGraph(agentMachine), { title }));
    lines.push(`report: ${files.report}`);
  }
  return { written: lines };
}
