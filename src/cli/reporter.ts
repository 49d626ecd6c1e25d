import type { AgentEvent } from '../events.js';
import type { RunResult } from '../result.js';
import { humanReporter } from './human-reporter.js';
import { terminalSafe } from './terminal-text.js';
import type { Palette } from './palette.js';
import type { TextSink } from './redact.js';
import type { ActivityIndicator } from './spinner.js';

/** How `loopchart run` writes a run: for people, or as JSON for programs. */
export type OutputMode = 'human' | 'json' | 'events';

/** Turns a run into output. stdout carries the run; stderr carries everything else. */
export interface Reporter {
  /** Every event the agent reports, in order. */
  event(event: AgentEvent): void;
  /** Called once, after the last run, with its result. */
  finish(result: RunResult): void;
  /** Context for people (the workspace, …): on stderr in human mode, dropped otherwise. */
  info(line: string): void;
  /** Something the user must see (expectation failures, errors): on stderr in every mode. */
  warn(line: string): void;
  /** Something the user needs that is not a problem (a session id to resume, the inspector's page): on stderr in every mode. */
  notice(line: string): void;
}

export interface ReporterOptions {
  stdout: TextSink;
  /**
   * stdout is a terminal: the answer streams as it arrives, and an attempt that a retry discards is
   * marked as discarded. Otherwise (a file, a pipe) each attempt's text is held until the attempt is
   * known to be kept, so stdout holds only the kept answer.
   */
  stdoutIsTerminal?: boolean;
  stderr: TextSink;
  palette: Palette;
  indicator: ActivityIndicator;
}

/**
 * - `human`: assistant text streams to stdout; tool activity, the spinner and
 *   the summary go to stderr.
 * - `json`: stdout gets the final `RunResult` as one JSON object, nothing else.
 * - `events`: stdout gets every `AgentEvent` as one JSON object per line (NDJSON), nothing else.
 */
export function createReporter(mode: OutputMode, options: ReporterOptions): Reporter {
  const warn = (line: string) => void options.stderr.write(`${options.palette.red(terminalSafe(line))}\n`);
  const notice = (line: string) => void options.stderr.write(`${terminalSafe(line)}\n`);
  switch (mode) {
    case 'human':
      return humanReporter(options);
    case 'json':
      return { event: (event) => warnOfSession(event, warn), finish: (result) => void options.stdout.write(`${JSON.stringify(result)}\n`), info() {}, warn, notice };
    case 'events':
      return {
        event: (event) => {
          options.stdout.write(`${JSON.stringify(event)}\n`);
          warnOfSession(event, warn);
        },
        finish() {},
        info() {},
        warn,
        notice,
      };
  }
}

/** A session that cannot be written needs attention in every output mode. */
function warnOfSession(event: AgentEvent, warn: (line: string) => void): void {
  if (event.type === 'session-warning') warn(`session ${event.sessionId}: ${event.message}`);
}
