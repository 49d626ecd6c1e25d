import { isConnectionError } from '../persistence/connection-error.js';
import { LeaseHeldError, LeaseLostError, SessionConflictError } from '../persistence/session-store.js';
import { SessionNotDurableError } from './session-not-durable-error.js';

/**
 * Whether advancing a session failed in a way that another attempt can get past: a lease still
 * held by another (perhaps dead) worker or taken over, a session written by another writer since
 * it was read, a boundary the store did not take (`SessionNotDurableError`), or a connection to
 * the database or Redis that was refused, cut or timed out. Anything else — a malformed request,
 * invalid agent options, an unreadable session — fails the same way every time and must fail the
 * turn at once.
 *
 * @example
 * ```ts
 * DBOS.runStep(() => advanceSession(options), { retriesAllowed: true, shouldRetry: isRetryableSessionError });
 * ```
 */
export function isRetryableSessionError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof LeaseHeldError || current instanceof LeaseLostError || current instanceof SessionConflictError || current instanceof SessionNotDurableError) return true;
  }
  return isConnectionError(error);
}
