import type { Pool } from 'pg';
import { SESSION_CHANGED_CHANNEL } from './pg-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { readSessionView, type SessionView } from '../persistence/session-view.js';

export interface WatchSessionOptions {
  /** A pool on the database `pgStore` writes to: one connection is held to listen. */
  pool: Pool;
  /** The store to re-read the session from (usually `pgStore` on the same pool). */
  store: SessionStore;
  sessionId: string;
  signal?: AbortSignal;
}

/**
 * A session as it changes, without Redis: the current view first, then a new view each time a
 * worker appends to the session (`pgStore` sends a Postgres `NOTIFY` with every append; changes
 * that arrive while a view is read are folded into the next one). Ends when `signal` aborts.
 * Coarser than the Redis event stream — step boundaries, not deltas — and enough for a page that
 * shows the history and the approvals that wait.
 *
 * @example
 * ```ts
 * for await (const view of watchSession({ pool, store, sessionId: 'chat-42', signal })) {
 *   render(view.messages, view.pendingApprovals);
 * }
 * ```
 */
export async function* watchSession(options: WatchSessionOptions): AsyncGenerator<SessionView | undefined> {
  const client = await options.pool.connect();
  let wake: (() => void) | undefined;
  // A cut connection fails the next read (the generator throws) instead of ending the process.
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
    wake?.();
  };
  client.on('error', onError);
  let changed = true;
  const onNotification = (message: { channel: string; payload?: string }) => {
    if (message.channel !== SESSION_CHANGED_CHANNEL || message.payload?.split(' ')[0] !== options.sessionId) return;
    changed = true;
    wake?.();
  };
  const onAbort = () => wake?.();
  client.on('notification', onNotification);
  options.signal?.addEventListener('abort', onAbort);
  try {
    await client.query(`LISTEN ${SESSION_CHANGED_CHANNEL}`);
    while (!options.signal?.aborted) {
      if (broken) throw new Error(`watching session ${options.sessionId}: the connection to Postgres broke (${broken.message})`, { cause: broken });
      if (!changed) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      changed = false;
      yield await readSessionView(options.store, options.sessionId);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    client.off('notification', onNotification);
    if (!broken) await client.query(`UNLISTEN ${SESSION_CHANGED_CHANNEL}`).catch(() => undefined);
    client.off('error', onError);
    client.release(broken);
  }
}
