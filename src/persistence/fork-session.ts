import { generateId } from 'ai';
import { replaySession } from './session-replay.js';
import { sessionHeader, type SessionStore } from './session-store.js';

/**
 * Starts a new session from a checkpoint of another: the history as it was
 * there and the machine's state at that boundary. The original session is
 * not touched. Resume the fork with `createAgent({ store, sessionId })`.
 *
 * @example
 * ```ts
 * const [, second] = agent.checkpoints();
 * const forkId = await forkSession({ store, from: agent.sessionId!, at: second!.id });
 * const fork = createAgent({ model, tools, store, sessionId: forkId });
 * await fork.resume();
 * ```
 * @returns the new session's id.
 */
export async function forkSession(options: { store: SessionStore; from: string; at: number; sessionId?: string }): Promise<string> {
  const { store, from, at } = options;
  const log = await store.read(from);
  if (!log) throw new Error(`forkSession: there is no session "${from}"`);
  const replayed = replaySession(log.records, at);
  const checkpoint = replayed.last!;
  const sessionId = options.sessionId ?? generateId();
  await store.create(sessionHeader(sessionId, { sessionId: from, checkpoint: at }));
  await store.append(sessionId, [
    { type: 'history', messages: replayed.messages },
    { ...checkpoint, id: 1, at: new Date().toISOString() },
  ]);
  return sessionId;
}
