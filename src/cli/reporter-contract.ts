import type { AgentEvent } from '../core/events.js';
import type { RunResult } from '../core/result.js';
import type { Palette } from './palette.js';
import type { SandboxReport } from './sandbox-choice.js';
import type { TextSink } from './redact.js';
import type { ActivityIndicator } from './spinner.js';

/** Turns a run into output. stdout carries the run; stderr carries everything else. */
export interface Reporter {
  /** Every event the agent reports, in order. */
  event(event: CliEvent): void;
  /** Called once, after the last run, with its result. */
  finish(result: CliRunResult): void;
  /** Context for people (the workspace, …): on stderr in human mode, dropped otherwise. */
  info(line: string): void;
  /** Something the user must see (expectation failures, errors): on stderr in every mode. */
  warn(line: string): void;
  /** Something the user needs that is not a problem (a session id to resume, the inspector's page): on stderr in every mode. */
  notice(line: string): void;
}

/** An agent event as the CLI reports it: a `run-start` names the session the run is kept in. */
export type CliEvent = AgentEvent & { sessionId?: string };

/** A run's result as the CLI reports it: with the session it was kept in and the sandbox tools ran in. */
export type CliRunResult = RunResult & {
  /** The session (`--session`, `--continue`, `LOOPCHART_SESSION_DIR`) the run was kept in. */
  sessionId?: string;
  /** The sandbox bash and the MCP servers ran in, for a run with either. */
  sandbox?: SandboxReport;
};

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
