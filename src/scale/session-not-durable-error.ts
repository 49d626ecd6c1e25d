/**
 * A session was advanced, but the store did not take its last step boundary (a connection cut, a
 * full disk, a lease lost meanwhile): the store still shows the session where its last written
 * checkpoint left it, so the work must be tried again from there rather than reported done.
 * `advanceSession` throws it; engines retry it (`isRetryableSessionError`).
 */
export class SessionNotDurableError extends Error {
  override readonly name = 'SessionNotDurableError';
}
