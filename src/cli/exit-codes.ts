import type { Outcome } from '../core/result.js';

/** `loopchart run` exit codes, by outcome. Documented in docs/cli.md. */
export const exitCodeByOutcome: Readonly<Record<Outcome, number>> = {
  completed: 0,
  failed: 1,
  'max-steps': 3,
  'doom-loop': 4,
  'context-limit': 5,
  'content-filter': 6,
  timeout: 7,
  denied: 8,
  aborted: 130,
};

/** The exit code of a run stopped by a signal (or a closed output, as SIGPIPE): 128 + the signal's number, as a shell reports it. */
export const exitCodeBySignal: Readonly<Record<'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGPIPE', number>> = {
  SIGINT: 130,
  SIGTERM: 143,
  SIGHUP: 129,
  SIGPIPE: 141,
};

/** Bad usage or an invalid script. */
export const USAGE_ERROR = 2;
/** The run ended as its script expected in outcome, but an `expect` check failed. */
export const EXPECTATION_FAILED = 9;
