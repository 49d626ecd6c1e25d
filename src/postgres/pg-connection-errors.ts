import type { Pool, PoolClient } from 'pg';
import { tolerant } from '../core/app-handler.js';
import { isConnectionError } from '../persistence/connection-error.js';

const guarded = new WeakSet<Pool>();

/**
 * `pg` reports a connection that breaks while no query runs on it (the server restarted, a proxy
 * cut it) as an `'error'` event, on the pool for an idle connection and on the client for one
 * checked out; an event nobody listens to ends the process. The pool has already dropped the
 * broken connection and the next query gets a new one, so loopchart listens on every pool it is
 * given: such an error goes to `onError` (default: nowhere) instead of ending the process; a throw
 * of `onError` is swallowed.
 *
 * @example
 * ```ts
 * tolerateIdleConnectionErrors(pool, (error) => logger.warn(error));
 * ```
 */
export function tolerateIdleConnectionErrors(pool: Pool, onError: (error: Error) => void = () => undefined): void {
  if (guarded.has(pool)) return;
  guarded.add(pool);
  const report = tolerant(onError);
  pool.on('error', (error) => report(error));
}

/**
 * Checks a client out of the pool for `work`, with an `'error'` listener while it is out: a
 * connection cut between two queries of a transaction fails the next query (which `work` sees)
 * instead of ending the process. The client is released as broken when it failed.
 */
export async function withPoolClient<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } catch (error) {
    if (isConnectionError(error)) broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
