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

/** Bad usage or an invalid script. */
export const USAGE_ERROR = 2;
/** The run ended as its script expected in outcome, but an `expect` check failed. */
export const EXPECTATION_FAILED = 9;
