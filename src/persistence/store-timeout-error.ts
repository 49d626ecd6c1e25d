/**
 * A store that did not answer a call (a read, an append, a lease's acquire or release) in the time it had: a timeout, as a
 * connection's would be (`code` is `ETIMEDOUT`), so `isRetryableSessionError` and
 * `isConnectionError` take it as trouble another attempt can get past.
 *
 * @example
 * ```ts
 * import { isRetryableSessionError, StoreTimeoutError } from 'loopchart';
 *
 * const late = new StoreTimeoutError('the store did not answer acquiring the lease of session chat-42 within 30000 ms');
 * isRetryableSessionError(late); // true
 * ```
 */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  readonly code = 'ETIMEDOUT';
}
