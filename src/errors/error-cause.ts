import type { RunError } from '../core/outcome.js';

const causes = new WeakMap<RunError, unknown>();

/**
 * Remembers what was thrown for a `RunError` (an `APICallError`, say), outside the error itself: a
 * `RunError` is plain data kept in the machine's context and its snapshots, the thrown object is
 * not. The AI SDK adapter rethrows it, as `ToolLoopAgent` does. A restored run has no cause.
 */
export function withCause(error: RunError, cause: unknown): RunError {
  if (cause !== undefined) causes.set(error, cause);
  return error;
}

/** What was thrown for `error`, when this process saw it. */
export function causeOf(error: RunError | undefined): unknown {
  return error === undefined ? undefined : causes.get(error);
}
