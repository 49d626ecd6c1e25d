import type { SessionStore } from '../persistence/session-store.js';

/** An attempt to advance a session was taken over by a later attempt in the same process: it stopped without finishing. */
export class SessionSupersededError extends Error {
  override readonly name = 'SessionSupersededError';
}

/** One attempt to advance a session in this process. */
export interface SessionAttempt {
  /** How to stop this attempt's agent once a later attempt takes over (set once its agent exists). */
  onSuperseded(halt: (error: SessionSupersededError) => Promise<void>): void;
  /** `promise`, or a rejection with `SessionSupersededError` as soon as a later attempt takes over. */
  unlessSuperseded<T>(promise: Promise<T>): Promise<T>;
  /** The attempt is over: a later one need not stop it. */
  end(): void;
}

interface ActiveAttempt {
  supersede(): Promise<void>;
}

/** The attempts under way in this process, per store, by session and input (request id). */
const active = new WeakMap<SessionStore, Map<string, ActiveAttempt>>();

/**
 * Registers an attempt to advance `sessionId` with the input `requestId`, after stopping the
 * attempt at the same input already under way in this process, if any, and waiting until it has
 * stopped. An engine that retries a step while the attempt it replaces still runs (or runs a
 * recovered workflow a second time in the same process) then never has two agents on one session:
 * the earlier one stops as a crash would stop it, its work since its last checkpoint is left for
 * the later one to do again, and it rejects with `SessionSupersededError`. Attempts at other inputs,
 * here or in other processes, are kept apart by the session's lease: a stale one never stops the
 * current one.
 *
 * @example
 * ```ts
 * const attempt = await takeOverFromEarlierAttempt(store, 'chat-42', 'msg-7');
 * attempt.onSuperseded((error) => control.halt(error));
 * try { await attempt.unlessSuperseded(agent.ready()); } finally { attempt.end(); }
 * ```
 */
export async function takeOverFromEarlierAttempt(store: SessionStore, sessionId: string, requestId: string): Promise<SessionAttempt> {
  const key = `${sessionId}\u0000${requestId}`;
  let sessions = active.get(store);
  if (!sessions) active.set(store, (sessions = new Map<string, ActiveAttempt>()));
  let reject: (error: SessionSupersededError) => void = () => undefined;
  const superseded = new Promise<never>((_, rejectWith) => (reject = rejectWith));
  superseded.catch(() => undefined);
  let halt: ((error: SessionSupersededError) => Promise<void>) | undefined;
  let stopping: Promise<void> | undefined;
  const entry: ActiveAttempt = {
    supersede: () =>
      (stopping ??= (async () => {
        const error = new SessionSupersededError(`session ${sessionId}: a later attempt in this process took over; this one stopped without finishing`);
        reject(error);
        await halt?.(error);
      })()),
  };
  const earlier = sessions.get(key);
  sessions.set(key, entry);
  await earlier?.supersede();
  // A still later attempt took over while this one waited for the earlier to stop: it never starts.
  if (stopping) return superseded;
  return {
    onSuperseded(stop) {
      halt = stop;
    },
    unlessSuperseded: (promise) => Promise.race([promise, superseded]),
    end() {
      if (sessions.get(key) === entry) sessions.delete(key);
    },
  };
}
