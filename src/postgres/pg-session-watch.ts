import type { Pool } from 'pg';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { SESSION_CHANGED_CHANNEL } from './pg-store.js';
import { listenHeartbeatMs, listenOn } from '../persistence/pg-listen.js';
import type { SessionStore } from '../persistence/session-store.js';
import { readSessionView, type SessionView } from '../persistence/session-view.js';
import { assertSessionId } from '../persistence/session-id.js';

export interface WatchSessionOptions {
  /** A pool on the database `pgStore` writes to: one connection is held to listen. */
  pool: Pool;
  /** The store to re-read the session from (usually `pgStore` on the same pool). */
  store: SessionStore;
  sessionId: string;
  signal?: AbortSignal;
  /**
   * How often the listening connection is checked, and how long it has to answer: a connection
   * that stops answering without a reset fails the next read instead of leaving the views stale.
   * @default 10000
   */
  heartbeatMs?: number;
}

/**
 * `watchSession`'s options, checked whole when it is called, before anything connects: a misspelt
 * one is refused, not ignored. The pool and the store are checked where they are used, the
 * session id by the stores' rule, `heartbeatMs` by the listener's, whose messages name them.
 */
const watchSessionOptionsSchema = z.strictObject({
  pool: z.custom<Pool>((value) => typeof value === 'object' && value !== null, { message: 'expected a pg Pool' }),
  store: z.custom<SessionStore>((value) => typeof value === 'object' && value !== null, { message: 'expected a session store' }),
  sessionId: z.string(),
  signal: z.instanceof(AbortSignal).optional(),
  heartbeatMs: z.unknown().optional(),
});

/**
 * A session as it changes, without Redis: the current view first, then a new view each time a
 * worker appends to the session (`pgStore` sends a Postgres `NOTIFY` with every append; changes
 * that arrive while a view is read are folded into the next one). Ends when `signal` aborts.
 * Coarser than the Redis event stream — step boundaries, not deltas — and enough for a page that
 * shows the history and the approvals that wait.
 *
 * Its options are checked when it is called, not at the first `next()`: a generator handed on
 * before it is read does not carry a bad option with it.
 *
 * @example
 * ```ts
 * for await (const view of watchSession({ pool, store, sessionId: 'chat-42', signal })) {
 *   render(view.messages, view.pendingApprovals);
 * }
 * ```
 * @throws TypeError naming an unknown or mistyped option or an invalid session id, RangeError for a `heartbeatMs` no timer can keep.
 */
export function watchSession(options: WatchSessionOptions): AsyncGenerator<SessionView | undefined> {
  parseOptions('watchSession', watchSessionOptionsSchema, options);
  assertSessionId(options.sessionId);
  listenHeartbeatMs(options, 'watchSession');
  return sessionViews(options);
}

async function* sessionViews(options: WatchSessionOptions): AsyncGenerator<SessionView | undefined> {
  let wake: (() => void) | undefined;
  // A cut connection fails the next read (the generator throws) instead of ending the process.
  let broken: Error | undefined;
  let changed = true;
  const listening = await listenOn(options.pool, SESSION_CHANGED_CHANNEL, {
    onNotification: (payload) => {
      if (payload.split(' ')[0] !== options.sessionId) return;
      changed = true;
      wake?.();
    },
    onBroken: (error) => {
      broken = error;
      wake?.();
    },
  }, options);
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort);
  try {
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
    await listening.stop();
  }
}
