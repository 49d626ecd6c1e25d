import type { ModelMessage } from 'ai';

/**
 * A `generate()` / `stream()` call whose messages do not continue the conversation of the agent's
 * previous call — a `regenerate()`, an edited earlier message, another chat's messages. The agent
 * keeps its own history, so such a call cannot be honoured; it is refused before any run starts.
 */
export class ConversationMismatchError extends Error {
  override readonly name = 'ConversationMismatchError';
}

/** A user message as the comparison sees it: its text, and how many parts of each other type it has. */
function userShape(message: ModelMessage): string | undefined {
  if (message.role !== 'user') return undefined;
  if (typeof message.content === 'string') return JSON.stringify([message.content, {}]);
  const texts: string[] = [];
  const others: Record<string, number> = {};
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else others[part.type] = (others[part.type] ?? 0) + 1;
  }
  return JSON.stringify([texts.join(''), Object.fromEntries(Object.entries(others).sort())]);
}

/** The messages before the trailing user messages: what the agent is assumed to have already. */
function earlierOf(messages: readonly ModelMessage[]): readonly ModelMessage[] {
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role === 'user') end--;
  return messages.slice(0, end);
}

/** Where a call's new messages start (its index), or why the call does not continue the previous one. */
export type Continuation = { start: number } | { mismatch: string };

/**
 * Whether a call's `messages` continue the `previous` call's (the messages the agent's last run that
 * started was given), and where its new messages start. A call continues when nothing was
 * remembered, when it sends only user messages (a first call, or a client that sends only its newest
 * message: all of them are new), or when every user message of the previous call is found, the
 * same, at the same index, and the call has more: either replies after the previous call's messages
 * and then its new user messages (they start after the replies), or — the previous run failed
 * before it replied — only more user messages (they start after the previous call's). Only user
 * messages are compared (their text, and how many parts of each other type): the assistant and tool
 * messages are the agent's own, which a client may write back differently. Pure.
 *
 * @example
 * ```ts
 * const previous = [user('hi'), assistant('hello'), user('and now?')];
 * continuation(previous, [...previous, assistant('now'), user('thanks')]); // { start: 4 }
 * continuation(previous, previous); // { mismatch: 'it resends the previous call's messages …' } (a regenerate)
 * ```
 */
export function continuation(previous: readonly ModelMessage[] | undefined, messages: readonly ModelMessage[]): Continuation {
  const earlier = earlierOf(messages).length;
  if (previous === undefined || earlier === 0) return { start: earlier };
  const differs = previous.findIndex((message, at) => message.role === 'user' && (at >= messages.length || userShape(message) !== userShape(messages[at]!)));
  if (differs !== -1 && differs < messages.length) return { mismatch: `message ${differs} is not the user message the previous call was given at that index` };
  if (earlier >= previous.length) return { start: earlier };
  // The previous call's messages again, with no reply after them: its run failed before it replied (its own
  // messages are in the history), or its reply was dropped (a regenerate()).
  const noReply = previous.slice(earlier).every((message) => message.role === 'user');
  if (noReply && messages.length > previous.length) return { start: previous.length };
  if (noReply && messages.length === previous.length) return { mismatch: "it resends the previous call's messages without the agent's reply to them, and no new message (to go on after a failed run, send a new message)" };
  return { mismatch: `it has ${messages.length} messages, ${earlier} of them before its new user messages, where the previous call had ${previous.length} and the agent's replies to them` };
}

/** The messages each agent's last call whose run started was given, so that the next call can be checked against them. */
const lastCalls = new WeakMap<object, readonly ModelMessage[]>();

/**
 * Where the new messages of `agent`'s call start ({@link continuation}); throws a
 * {@link ConversationMismatchError} when `messages` do not continue its previous call, saying what
 * differs and what to do instead.
 */
export function newMessagesStart(agent: object, messages: readonly ModelMessage[]): number {
  const checked = continuation(lastCalls.get(agent), messages);
  if ('start' in checked) return checked.start;
  throw new ConversationMismatchError(
    `toAISDKAgent: this call does not continue the agent's conversation: ${checked.mismatch}. ` +
      "A loopchart agent keeps its own history, so a regenerate(), an edited message or another chat's messages cannot be honoured: " +
      'keep one agent per chat, and to go back to an earlier point start a new agent, or fork the session at an earlier checkpoint with forkSession (see docs/time-travel.md).',
  );
}

/** Remembers the messages of `agent`'s call, once its run has started (or its answers were taken): its messages are in the history. */
export function rememberCall(agent: object, messages: readonly ModelMessage[]): void {
  lastCalls.set(agent, [...messages]);
}
