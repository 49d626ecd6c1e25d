import { forkSession } from '../persistence/fork-session.js';
import { replaySession } from '../persistence/session-replay.js';
import type { SessionStore } from '../persistence/session-store.js';
import { editMessage } from './edit-message.js';

/**
 * Forks `from` at `checkpoint` through `forkSession` and, with `edit`, replaces one message's text
 * (with `append`, adds a user message at the end) in the fork (a new history record and a copy of its checkpoint, so the fork resumes from the
 * edited history). The original session is only read.
 *
 * @example
 * const forkId = await forkWithEdit(store, 'chat-42', { checkpoint: 2, edit: { index: 0, text: 'Fix b.ts instead' } });
 * @returns the fork's session id.
 * @throws Error when there is no such session or checkpoint, or the message cannot be edited (nothing is written for a bad edit).
 */
export async function forkWithEdit(
  store: SessionStore,
  from: string,
  request: { checkpoint: number; edit?: { index: number; text: string }; /** A user message added at the end of the fork's history. */ append?: string },
): Promise<string> {
  if (request.edit !== undefined) {
    // Checked before the fork is created, so that a bad edit leaves no half-made fork behind.
    const log = await store.read(from);
    if (!log) throw new Error(`there is no session "${from}"`);
    editMessage(replaySession(log.records, request.checkpoint).messages, request.edit);
  }
  const forkId = await forkSession({ store, from, at: request.checkpoint });
  if (request.edit === undefined && request.append === undefined) return forkId;
  const log = (await store.read(forkId))!;
  const { messages, last } = replaySession(log.records);
  const edited = request.edit !== undefined ? editMessage(messages, request.edit) : messages;
  const history = request.append !== undefined ? [...edited, { role: 'user' as const, content: request.append }] : edited;
  await store.append(
    forkId,
    [
      { type: 'history', messages: history },
      { ...last!, id: last!.id + 1, at: new Date().toISOString(), messageCount: history.length },
    ],
    log.version !== undefined ? { after: log.version } : {},
  );
  return forkId;
}
