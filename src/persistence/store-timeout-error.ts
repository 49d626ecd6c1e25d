/**
 * A store that did not answer a lease call (acquire, release) in the time it had: a timeout, as a
 * connection's would be (`code` is `ETIMEDOUT`), so `isRetryableSessionError` and
 * `isConnectionError` take it as trouble another attempt can get past.
 *
 * @example
 * ```ts
 * import { StoreTimeoutError } from 'loopchart';
 * try { await advanceSession(options); } catch (error) { if (error instanceof StoreTimeoutError) retryLater(); }
 * ```
 */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  readonly code = 'ETIMEDOUT';
}
