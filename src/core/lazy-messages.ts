import type { ModelMessage } from 'ai';
import type { MessageHistory, MessageList } from './message-history.js';

/** The history behind each object `withLazyMessages` gave a `messages` property. */
const histories = new WeakMap<object, MessageHistory>();

/**
 * Gives `target` a `messages` property that reads `history` as an array, made when it is first read
 * (`MessageHistory.toArray`): a tool's execute options, a step's request or a hook's arguments carry
 * the AI SDK's `messages` array without copying the history for the many callers that never read it.
 * Assigning `messages` replaces it as a plain property.
 *
 * @example
 * ```ts
 * const options = withLazyMessages({ toolCallId: 'call_1' }, history);
 * options.messages; // the history as an array, made now
 * ```
 */
export function withLazyMessages<T extends object>(target: T, history: MessageHistory): T & { messages: ModelMessage[] } {
  Object.defineProperty(target, 'messages', {
    get: () => history.toArray(),
    set(value: ModelMessage[]) {
      histories.delete(target);
      Object.defineProperty(target, 'messages', { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
  histories.set(target, history);
  return target as T & { messages: ModelMessage[] };
}

/** The history behind `holder.messages` when `withLazyMessages` gave it (read without making the array), else `holder.messages`. */
export function messagesOf(holder: { readonly messages: readonly ModelMessage[] }): MessageList {
  return histories.get(holder) ?? holder.messages;
}
