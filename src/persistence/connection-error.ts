/** Node's codes for a connection that failed, was cut or timed out: another attempt may find it back. */
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'ENOTCONN']);

/**
 * Postgres SQLSTATEs of trouble that passes: connection exceptions (class 08), a server shutting
 * down or starting (57P01-57P03), too many connections (53300), and a transaction that lost a race
 * (40001 serialization failure, 40P01 deadlock).
 */
function isTransientSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300', '40001', '40P01'].includes(code);
}

/** `pg` and `redis` report a lost connection without a code, in these words. */
const LOST_CONNECTION = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|socket hang up|The client is closed|Socket closed unexpectedly/i;

/**
 * Whether an error (or one of its causes) says a connection to a store or a stream was refused,
 * cut or timed out, or that the database gave up a transaction it can take again: trouble that
 * another attempt a moment later can get past, unlike an error in what was asked.
 *
 * @example
 * ```ts
 * isConnectionError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })); // true
 * isConnectionError(new TypeError('Invalid session id'));                                 // false
 * ```
 */
export function isConnectionError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || isTransientSqlState(code))) return true;
    if (LOST_CONNECTION.test(current.message)) return true;
    if (current instanceof AggregateError && current.errors.some(isConnectionError)) return true;
  }
  return false;
}
