import type { ModelMessage } from 'ai';
import { knownBeginning, type HistoryEntry } from './history.js';
import type { MessageList } from './message-history.js';

/** The ids read from a history (`source`), covering its first `count` messages. */
interface KnownIds extends HistoryEntry {
  ids: Set<string>;
}

/**
 * The ids read from each growing history, by its last message: the next step's history usually
 * begins with it, so only what was appended since is read. A history that goes on from an older
 * one shares its set, which may then hold ids of the other branch too: an id is at worst renamed
 * when it did not have to be, never kept when it had to change.
 */
const known = new WeakMap<ModelMessage, KnownIds>();

/**
 * The ids of every tool call in the history (assistant `tool-call` parts). Reads only the messages
 * appended since the last call for the same growing history: a step's cost does not grow with the
 * session.
 *
 * @example
 * toolCallIdsIn(history).has('call_0'); // an earlier step already used it
 */
export function toolCallIdsIn(messages: MessageList): ReadonlySet<string> {
  const earlier = knownBeginning(messages, known);
  const ids = earlier?.ids ?? new Set<string>();
  for (let index = earlier?.count ?? 0; index < messages.length; index++) {
    const message = messages.at(index)!;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') ids.add(part.toolCallId);
  }
  const last = messages.at(-1);
  if (last !== undefined) {
    if (earlier !== undefined && earlier.count < messages.length) known.delete(messages.at(earlier.count - 1)!);
    known.set(last, { source: messages, count: messages.length, ids });
  }
  return ids;
}
