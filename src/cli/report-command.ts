import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentMachine } from '../machine/agent-machine.js';
import { machineGraph } from '../machine/machine-graph.js';
import { parseRunTrace, renderTraceReport, TraceFormatError } from '../report/index.js';
import { USAGE_ERROR } from './exit-codes.js';
import { writeOutputFile } from './output-files.js';
import type { TextSink } from './redact.js';

export interface ReportCommandOptions {
  /** The trace file. */
  traceFile: string;
  /** Where the page goes; stdout without it. */
  output?: string;
  stdout: TextSink;
  stderr: TextSink;
}

/**
 * `loopchart report`: reads a saved trace, checks that it is one, and writes
 * its HTML report. Resolves with the exit code: 0, 2 when the file cannot be
 * read or is not a trace (the message names what is wrong), 1 when the page
 * cannot be written.
 *
 * @example
 * await reportCommand({ traceFile: 'trace.json', output: 'run.html', stdout: process.stdout, stderr: process.stderr }) // 0
 */
export async function reportCommand({ traceFile, output, stdout, stderr }: ReportCommandOptions): Promise<number> {
  const fail = (message: string, code: number) => {
    stderr.write(`loopchart: ${message}\n`);
    return code;
  };
  let text: string;
  try {
    text = await readFile(traceFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(`cannot read ${traceFile}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`, USAGE_ERROR);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(`${traceFile} is not JSON (${(error as Error).message}); give a trace written by loopchart run --trace`, USAGE_ERROR);
  }
  let html: string;
  try {
    html = renderTraceReport(parseRunTrace(json), machineGraph(agentMachine), { title: `loopchart run report · ${path.basename(traceFile)}` });
  } catch (error) {
    if (error instanceof TraceFormatError) return fail(`${traceFile} is ${error.message}`, USAGE_ERROR);
    throw error;
  }
  if (output === undefined) {
    stdout.write(html);
    return 0;
  }
  try {
    await writeOutputFile('--output', output, html);
  } catch (error) {
    return fail((error as Error).message, 1);
  }
  stderr.write(`report: ${output}\n`);
  return 0;
}
