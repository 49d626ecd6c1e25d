import { answerWithin } from '../core/answer-within.js';
import type { SessionStore } from './session-store.js';
import { StoreTimeoutError } from './store-timeout-error.js';

/**
 * The store as a session calls it: each `read`, `create` and `append` must answer within
 * `withinMs`, or it rejects with a retryable `StoreTimeoutError` (code `ETIMEDOUT`) that names the
 * call, so a store that stopped answering (a paused database, a dropped route, a hung disk) ends
 * in an error instead of holding the run for ever. The call itself goes on; a write that lands
 * late is found again by the writer's retry (it reads the session back). Leases go to the store
 * unchanged: the lease keeper bounds its own calls by the lease's time to live.
 *
 * @example
 * ```ts
 * const store = boundedStore(pgStore(pool), 30_000);
 * await store.append('chat-42', records); // rejects with a StoreTimeoutError after 30 s without an answer
 * ```
 */
export function boundedStore(store: SessionStore, withinMs: number): SessionStore {
  const bounded = <T>(call: string, work: Promise<T>): Promise<T> =>
    answerWithin(work, withinMs, () => new StoreTimeoutError(`the session store did not answer ${call} within ${withinMs} ms`));
  return {
    read: (sessionId) => bounded(`a read of session ${sessionId}`, store.read(sessionId)),
    create: (header) => bounded(`the creation of session ${header.sessionId}`, store.create(header)),
    append: (sessionId, records, options) => bounded(`an append to session ${sessionId}`, store.append(sessionId, records, options)),
    ...(store.leases ? { leases: store.leases } : {}),
  };
}
