import type { ModelMessage } from 'ai';
import type { MessageHistory, MessageList } from './message-history.js';

/** Where `withLazyMessages` keeps the history on the object it gave a `messages` property. */
const HISTORY = Symbol('loopchart.lazyMessages');

type LazyHolder = { [HISTORY]?: MessageHistory; messages?: readonly ModelMessage[] };

function readMessages(this: LazyHolder): ModelMessage[] {
  const history = this[HISTORY];
  if (history === undefined) throw new TypeError('messages was read from an object other than the one withLazyMessages gave it to');
  return history.toArray() as ModelMessage[];
}

function replaceMessages(this: LazyHolder, value: ModelMessage[]): void {
  this[HISTORY] = undefined;
  Object.defineProperty(this, 'messages', { value, writable: true, enumerable: true, configurable: true });
}

/**
 * One descriptor for every object: V8 gives the objects one shape with the same accessor (a
 * descriptor with fresh closures each time made every call ~20x dearer, and this runs for every
 * tool call and model call).
 */
const LAZY_MESSAGES: PropertyDescriptor = { get: readMessages, set: replaceMessages, enumerable: true, configurable: true };

/**
 * Gives `target` a `messages` property that reads `history` as an array, made when it is first read
 * (`MessageHistory.toArray`): a tool's execute options, a step's request or a hook's arguments carry
 * the AI SDK's `messages` array without copying the history for the many callers that never read it.
 * Assigning `messages` replaces it as a plain property; a spread copy gets the array.
 *
 * @example
 * ```ts
 * const options = withLazyMessages({ toolCallId: 'call_1' }, history);
 * options.messages; // the history as an array, made now
 * ```
 */
export function withLazyMessages<T extends object>(target: T, history: MessageHistory): T & { messages: ModelMessage[] } {
  // Not enumerable: a spread copy or a deep-equality check of the object sees `messages`, as before, and nothing of ours.
  Object.defineProperty(target, HISTORY, { value: history, writable: true, enumerable: false, configurable: true });
  Object.defineProperty(target, 'messages', LAZY_MESSAGES);
  return target as T & { messages: ModelMessage[] };
}

/** The history behind `holder.messages` when `withLazyMessages` gave it (read without making the array), else `holder.messages`. */
export function messagesOf(holder: { readonly messages: readonly ModelMessage[] }): MessageList {
  const history = (holder as LazyHolder)[HISTORY];
  // Read through the prototype too (an `Object.create` child), so only our own accessor on the holder itself means the history.
  if (history !== undefined && Object.getOwnPropertyDescriptor(holder, 'messages')?.get === readMessages) return history;
  return holder.messages;
}
