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

/** How many messages come before the trailing user messages: what the agent is assumed to have already. */
function earlierLength(messages: readonly ModelMessage[]): number {
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role === 'user') end--;
  return end;
}

/** The index of each user message, in order. */
function userIndexes(messages: readonly ModelMessage[]): number[] {
  return messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
}

/** Where a call's new messages start (its index), or why the call does not continue the previous one. */
export type Continuation = { start: number } | { mismatch: string };

/**
 * Whether a call's `messages` continue the `previous` call's (the messages the agent's last run that
 * started was given), and where its new messages start. Only user messages are compared (their text,
 * and how many parts of each other type), in order: the assistant and tool messages are the agent's
 * own, which a client may write back differently or prune (`pruneMessages`). A call continues when
 * nothing was remembered; when it sends only user messages (a first call, or a client that sends only
 * its newest message: all of them are new); or when it begins with the previous call's user messages,
 * the same, and has more: after replies to all of them (the new ones start after the replies), or —
 * the previous run failed before it replied — right after the ones that had no reply (the new ones
 * start after the previous call's). Pure.
 *
 * @example
 * ```ts
 * const previous = [user('hi'), assistant('hello'), user('and now?')];
 * continuation(previous, [...previous, assistant('now'), user('thanks')]); // { start: 4 }
 * continuation(previous, previous); // { mismatch: 'it has no user message the previous call did not have …' } (a regenerate)
 * ```
 */
export function continuation(previous: readonly ModelMessage[] | undefined, messages: readonly ModelMessage[]): Continuation {
  const earlier = earlierLength(messages);
  if (previous === undefined || earlier === 0) return { start: earlier };
  const before = userIndexes(previous);
  const now = userIndexes(messages);
  const differs = before.findIndex((at, nth) => nth < now.length && userShape(previous[at]!) !== userShape(messages[now[nth]!]!));
  if (differs !== -1) return { mismatch: `message ${now[differs]!} is not the user message the previous call was given there (its user message ${differs + 1})` };
  // No new message at all: the caller is told that, not that the conversation differs.
  if (earlier === messages.length) return { start: earlier };
  if (now.length <= before.length) {
    return { mismatch: `it has no user message the previous call did not have (${now.length} user messages, the previous call ${before.length}): to go on, send a new message` };
  }
  // The user messages before a call's trailing ones: those the agent had replied to.
  const repliedNow = now.filter((at) => at < earlier).length;
  // Replies to every user message of the previous call: the new messages are the trailing ones.
  if (repliedNow >= before.length) return { start: earlier };
  // The previous run failed before it replied: the user messages it had no reply to come again, with new ones after them.
  const earlierBefore = earlierLength(previous);
  if (repliedNow === before.filter((at) => at < earlierBefore).length && earlierBefore < previous.length) return { start: now[before.length]! };
  return { mismatch: `the replies to its user messages ${repliedNow + 1} to ${before.length} are missing, which the previous call had` };
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
