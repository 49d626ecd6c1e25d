import { forkSession } from '../persistence/fork-session.js';
import { replaySession } from '../persistence/session-replay.js';
import type { SessionStore } from '../persistence/session-store.js';
import { editMessage } from './edit-message.js';

/**
 * Forks `from` at `checkpoint` through `forkSession` and, with `edit`, replaces one message's text
 * in the fork (a new history record and a copy of its checkpoint, so the fork resumes from the
 * edited history). The original session is only read.
 *
 * @example
 * const forkId = await forkWithEdit(store, 'chat-42', { checkpoint: 2, edit: { index: 0, text: 'Fix b.ts instead' } });
 * @returns the fork's session id.
 * @throws Error when there is no such session or checkpoint, or the message cannot be edited (nothing is written for a bad edit).
 */
export async function forkWithEdit(store: SessionStore, from: string, request: { checkpoint: number; edit?: { index: number; text: string } }): Promise<string> {
  if (request.edit !== undefined) {
    // Checked before the fork is created, so that a bad edit leaves no half-made fork behind.
    const log = await store.read(from);
    if (!log) throw new Error(`there is no session "${from}"`);
    editMessage(replaySession(log.records, request.checkpoint).messages, request.edit);
  }
  const forkId = await forkSession({ store, from, at: request.checkpoint });
  if (request.edit === undefined) return forkId;
  const log = (await store.read(forkId))!;
  const { messages, last } = replaySession(log.records);
  await store.append(forkId, [
    { type: 'history', messages: editMessage(messages, request.edit) },
    { ...last!, id: last!.id + 1, at: new Date().toISOString() },
  ], log.version !== undefined ? { after: log.version } : {});
  return forkId;
}
