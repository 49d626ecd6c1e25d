import type { ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';
import { errorMessage } from './error-message.js';
import { MessageHistory, type MessageList } from './message-history.js';

/** One tool call's answer as it enters the history. */
export interface ToolAnswer {
  toolCallId: string;
  toolName: string;
  output: ToolResultPart['output'];
}

/** What a cache keyed by a history's last message remembers: which history, and how many of its messages. */
export interface HistoryEntry {
  source: MessageList;
  count: number;
}

/**
 * The entry `cache` holds for the nearest beginning of `history` it knows: looked up by each of the
 * last `lookBack` messages (a step appends a few), kept only if `history` really begins with that
 * entry's history. For caches that let a step work on what was appended since the last one.
 */
export function knownBeginning<T extends HistoryEntry>(history: MessageList, cache: WeakMap<ModelMessage, T>, lookBack = 16): T | undefined {
  for (let index = history.length - 1; index >= Math.max(0, history.length - lookBack); index--) {
    const entry = cache.get(history.at(index)!);
    if (entry !== undefined && entry.count === index + 1 && extendsHistory(history, entry.source)) return entry;
  }
  return undefined;
}

/**
 * Whether `history` begins with every message of `earlier` (the same objects, in order). O(1) when
 * both are histories of one lineage (see `MessageHistory`); otherwise it compares them message by message.
 */
export function extendsHistory(history: MessageList, earlier: MessageList): boolean {
  if (earlier.length > history.length) return false;
  const known = MessageHistory.of(history);
  if (known !== undefined) return known.startsWith(earlier);
  for (let index = 0; index < earlier.length; index++) if (earlier.at(index) !== history.at(index)) return false;
  return true;
}

/** The message of a call whose execution threw past every guard (a bug, or a custom tool runner's crash). */
export function toolCrashMessage(toolName: string, error: unknown): string {
  return `Tool "${toolName}" crashed: ${errorMessage(error)}`;
}

export function errorAnswer(call: { toolCallId: string; toolName: string }, message: string): ToolAnswer {
  return { toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: message } };
}

export function toolMessage(answers: readonly ToolAnswer[]): ToolModelMessage {
  return {
    role: 'tool',
    content: answers.map((answer) => ({
      type: 'tool-result',
      toolCallId: answer.toolCallId,
      toolName: answer.toolName,
      output: answer.output,
    })),
  };
}

/** Tool calls made in `messages[from..]` that have no tool result yet, in call order. */
export function unansweredToolCalls(
  messages: MessageList,
  from = 0,
): Array<{ toolCallId: string; toolName: string }> {
  const pending = new Map<string, { toolCallId: string; toolName: string }>();
  for (let index = from; index < messages.length; index++) {
    const message = messages.at(index)!;
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && message.role === 'assistant' && !part.providerExecuted) {
        pending.set(part.toolCallId, { toolCallId: part.toolCallId, toolName: part.toolName });
      } else if (part.type === 'tool-result') {
        pending.delete(part.toolCallId);
      }
    }
  }
  return [...pending.values()];
}
