import type { AgentEvent } from '../core/events.js';
import { callWarningNotices } from './call-warning-notices.js';
import { humanReporter } from './human-reporter.js';
import { terminalSafe } from './terminal-text.js';
import type { Reporter, ReporterOptions } from './reporter-contract.js';

export type { CliEvent, CliRunResult, Reporter, ReporterOptions } from './reporter-contract.js';

/** How `loopchart run` writes a run: for people, or as JSON for programs. */
export type OutputMode = 'human' | 'json' | 'events';

/**
 * - `human`: assistant text streams to stdout; tool activity, the spinner and
 *   the summary go to stderr.
 * - `json`: stdout gets the final `RunResult` as one JSON object, nothing else.
 * - `events`: stdout gets every `AgentEvent` as one JSON object per line (NDJSON), nothing else.
 *
 * In every mode stderr gets each distinct warning of the provider's once per run
 * (`callWarningNotices`), and a session that cannot be written.
 */
export function createReporter(mode: OutputMode, options: ReporterOptions): Reporter {
  const warn = (line: string) => void options.stderr.write(`${options.palette.red(terminalSafe(line))}\n`);
  const notice = (line: string) => void options.stderr.write(`${terminalSafe(line)}\n`);
  const callWarnings = callWarningNotices();
  const caution = (event: AgentEvent) => {
    warnOfSession(event, warn);
    for (const line of callWarnings(event)) options.stderr.write(`${options.palette.yellow(terminalSafe(line))}\n`);
  };
  switch (mode) {
    case 'human':
      return humanReporter(options);
    case 'json':
      return { event: caution, finish: (result) => void options.stdout.write(`${JSON.stringify(result)}\n`), info() {}, warn, notice };
    case 'events':
      return {
        event: (event) => {
          options.stdout.write(`${JSON.stringify(event)}\n`);
          caution(event);
        },
        finish() {},
        info() {},
        warn,
        notice,
      };
  }
}

/** A session that cannot be written needs attention in every output mode, and so does a warning of the provider's. */
function warnOfSession(event: AgentEvent, warn: (line: string) => void): void {
  if (event.type === 'session-warning') warn(`session ${event.sessionId}: ${event.message}`);
}
