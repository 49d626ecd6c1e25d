import type { ModelMessage } from 'ai';

/** The history each array `toArray()` made is of, so comparing it with another history stays O(1). */
const historyOfArray = new WeakMap<readonly ModelMessage[], MessageHistory>();

/** A history as the machine keeps it, or as an array of messages: what the history's pure helpers read. */
export type MessageList = MessageHistory | readonly ModelMessage[];

/**
 * A run's history as the machine's context holds it: immutable like the array it replaces, but
 * appending does not copy it. Each history is a length over a log it may share with the histories
 * it was appended from: an append to the newest history of a log pushes onto the log (O(added)),
 * and an append to an older one (a branch: a retried step, a fork) copies that history's messages
 * into a log of its own. No history ever sees messages past its own length, so every holder of one
 * (a snapshot, a checkpoint, the inspector) keeps seeing exactly what it was given.
 *
 * Copying the history at each append cost little by itself, but at 10,000 messages each copy was an
 * 80 KB array that V8 kept through its young collections (docs/performance.md, "What XState's actions
 * keep alive"): the step's cost grew with the session.
 *
 * Arrays are made only where one leaves the machine (`toArray()`, `slice()`); `JSON.stringify` writes
 * the array (`toJSON()`), so a persisted snapshot holds the messages as before.
 *
 * @example
 * ```ts
 * import { MessageHistory } from 'loopchart/machine';
 *
 * const history = MessageHistory.from([{ role: 'user', content: 'hi' }]);
 * const next = history.append({ role: 'assistant', content: 'hello' });
 * history.length; // 1: appending made a new history
 * next.at(-1); // { role: 'assistant', content: 'hello' }
 * next.toArray(); // both messages, as an array of its own
 * ```
 */
export class MessageHistory implements Iterable<ModelMessage> {
  /** Messages shared with the histories of the same lineage; this history is the first `length`. */
  readonly #log: ModelMessage[];
  /** The number of messages. */
  readonly length: number;
  #array: readonly ModelMessage[] | undefined;

  private constructor(log: ModelMessage[], length: number) {
    this.#log = log;
    this.length = length;
  }

  /** An empty history. */
  static readonly empty: MessageHistory = new MessageHistory([], 0);

  /** A history of `messages` (copied: later changes to the array do not reach it). A history is returned as it is. */
  static from(messages: Iterable<ModelMessage> | MessageHistory): MessageHistory {
    if (messages instanceof MessageHistory) return messages;
    const log = Array.from(messages);
    return new MessageHistory(log, log.length);
  }

  /** Whether `value` is a history (and not an array of messages). */
  static isHistory(value: unknown): value is MessageHistory {
    return value instanceof MessageHistory;
  }

  /** A new history: this one followed by `added`. This history does not change. */
  append(...added: readonly ModelMessage[]): MessageHistory {
    if (added.length === 0) return this;
    const log = this.#log;
    // An empty history never shares its log: `empty`, shared by every agent, would keep the first one's history.
    if (log.length === this.length && this.length > 0) {
      for (const message of added) log.push(message);
      return new MessageHistory(log, log.length);
    }
    // A branch off an older history of the log: its own log, so neither sees the other's messages.
    const own = log.slice(0, this.length);
    for (const message of added) own.push(message);
    return new MessageHistory(own, own.length);
  }

  /** The message at `index` (negative counts from the end), as `Array.prototype.at`. */
  at(index: number): ModelMessage | undefined {
    const position = index < 0 ? this.length + index : index;
    return position >= 0 && position < this.length ? this.#log[position] : undefined;
  }

  /** The messages from `start` to `end` (exclusive), as a new array, as `Array.prototype.slice`. */
  slice(start = 0, end = this.length): ModelMessage[] {
    return this.#log.slice(clamp(start, this.length), clamp(end, this.length));
  }

  /**
   * The messages as an array. Made once per history and shared by its callers: read it, do not
   * change it (`slice()` gives an array to change).
   */
  toArray(): readonly ModelMessage[] {
    if (this.#array === undefined) {
      this.#array = this.#log.slice(0, this.length);
      historyOfArray.set(this.#array, this);
    }
    return this.#array;
  }

  /** `list` if it is a history, the history it was made from if it is an array `toArray()` made, else undefined. */
  static of(list: MessageList): MessageHistory | undefined {
    return list instanceof MessageHistory ? list : historyOfArray.get(list);
  }

  /** What `JSON.stringify` writes: the messages as an array. */
  toJSON(): readonly ModelMessage[] {
    return this.toArray();
  }

  /** Whether this history begins with every message of `earlier` (the same objects, in order): O(1) when both are of one lineage. */
  startsWith(earlier: MessageList): boolean {
    if (earlier.length > this.length) return false;
    const history = MessageHistory.of(earlier);
    if (history !== undefined && history.#log === this.#log) return true;
    for (let index = 0; index < earlier.length; index++) if (earlier.at(index) !== this.#log[index]) return false;
    return true;
  }

  /** The index of the last message `predicate` holds for, or -1, as `Array.prototype.findLastIndex`. */
  findLastIndex(predicate: (message: ModelMessage, index: number) => boolean): number {
    for (let index = this.length - 1; index >= 0; index--) if (predicate(this.#log[index]!, index)) return index;
    return -1;
  }

  *[Symbol.iterator](): Iterator<ModelMessage> {
    const log = this.#log;
    for (let index = 0; index < this.length; index++) yield log[index]!;
  }
}

/** `list` as an array: itself if it is one, else the history's `toArray()` (read it, do not change it). */
export function messageArray(list: MessageList): ModelMessage[] {
  return (list instanceof MessageHistory ? list.toArray() : list) as ModelMessage[];
}

function clamp(index: number, length: number): number {
  return index < 0 ? Math.max(0, length + index) : Math.min(index, length);
}
