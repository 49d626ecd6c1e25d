import type { ModelMessage } from 'ai';
import { SessionFormatError, type CheckpointRecord, type SessionRecord } from './session-store.js';

export interface ReplayedSession {
  /** The history at the last checkpoint (messages written after it belong to a step that never finished). */
  messages: ModelMessage[];
  checkpoints: CheckpointRecord[];
  last?: CheckpointRecord;
}

/**
 * Rebuilds the history and the checkpoints from a session's records, in one
 * pass: a message record sets the message at its index (a lower index rewinds
 * the history, as after a step that re-ran), a history record replaces it.
 * With `until`, stops at that checkpoint (for forks).
 *
 * Records that contradict each other — a message past the history's end, a checkpoint that counts
 * more messages than were written, checkpoint ids that do not grow (records duplicated or out of
 * order) — are a `SessionFormatError` that names `source` (the session).
 */
export function replaySession(records: readonly SessionRecord[], until?: number, source = 'session log'): ReplayedSession {
  let messages: ModelMessage[] = [];
  const checkpoints: CheckpointRecord[] = [];
  let atLast: ModelMessage[] = [];
  for (const record of records) {
    if (record.type === 'history') {
      messages = [...record.messages];
    } else if (record.type === 'message') {
      if (record.index > messages.length) {
        throw new SessionFormatError(`${source}: message ${record.index} arrives while the history has ${messages.length} messages (records missing or out of order)`);
      }
      messages.length = record.index;
      messages.push(record.message);
    } else if (record.type === 'checkpoint') {
      if (record.messageCount > messages.length) {
        throw new SessionFormatError(`${source}: checkpoint ${record.id} counts ${record.messageCount} messages but ${messages.length} were written (records missing or out of order)`);
      }
      const previous = checkpoints.at(-1);
      if (previous !== undefined && record.id <= previous.id) {
        throw new SessionFormatError(`${source}: checkpoint ${record.id} comes after checkpoint ${previous.id}: checkpoint ids grow (records duplicated or out of order)`);
      }
      checkpoints.push(record);
      atLast = messages.slice(0, record.messageCount);
      if (until !== undefined && record.id === until) break;
    }
  }
  if (until !== undefined && checkpoints.at(-1)?.id !== until) throw new Error(`${source}: no checkpoint ${until}`);
  const last = checkpoints.at(-1);
  return { messages: last ? atLast : messages, checkpoints, ...(last ? { last } : {}) };
}
