import type { ModelMessage } from 'ai';
import type { MessageList } from '../core/message-history.js';
import { estimateTextTokens } from './token-estimate.js';

export const PRUNED_TOOL_OUTPUT = '[Old tool output removed to save context; run the tool again if you need it.]';

/** Default: the newest tool outputs worth this many tokens stay whole. */
export const DEFAULT_PROTECTED_TOOL_TOKENS = 40_000;

function outputTokens(output: { type: string; value?: unknown }): number {
  const text = typeof output.value === 'string' ? output.value : JSON.stringify(output.value ?? null);
  return estimateTextTokens(text);
}

/**
 * The tool results to hide from the model: every one older than the newest
 * `protectTokens` worth of tool output. Pure; walks the history once from the end.
 */
export function selectPrunableToolResults(messages: readonly ModelMessage[], protectTokens = DEFAULT_PROTECTED_TOOL_TOKENS): string[] {
  const prunable: string[] = [];
  let seen = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'tool') continue;
    for (let part = message.content.length - 1; part >= 0; part--) {
      const result = message.content[part]!;
      if (result.type !== 'tool-result') continue;
      seen += outputTokens(result.output);
      if (seen > protectTokens && !(result.output.type === 'text' && result.output.value === PRUNED_TOOL_OUTPUT)) prunable.push(result.toolCallId);
    }
  }
  return prunable.reverse();
}

/** Each pruned id list as a set, made once per list (the context keeps one list until the next compaction). */
const prunedSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The model's view of each tool message, for the pruned id list it was made with. */
const views = new WeakMap<ModelMessage, { pruned: readonly string[]; view: ModelMessage }>();

function toolMessageView(message: Extract<ModelMessage, { role: 'tool' }>, pruned: readonly string[]): ModelMessage {
  const known = views.get(message);
  if (known?.pruned === pruned) return known.view;
  let ids = prunedSets.get(pruned);
  if (ids === undefined) {
    ids = new Set(pruned);
    prunedSets.set(pruned, ids);
  }
  const view = !message.content.some((part) => part.type === 'tool-result' && ids.has(part.toolCallId))
    ? message
    : {
        ...message,
        content: message.content.map((part) =>
          part.type === 'tool-result' && ids.has(part.toolCallId) ? { ...part, output: { type: 'text' as const, value: PRUNED_TOOL_OUTPUT } } : part,
        ),
      };
  views.set(message, { pruned, view });
  return view;
}

/**
 * The view of the history the model sees: pruned tool outputs replaced by a short marker. The history
 * itself is unchanged. A message's view is made once per pruned id list, so from one call to the next
 * the view is made of the same objects and the prompt's conversion stays incremental.
 */
export function applyPruning<T extends MessageList>(messages: T, pruned: readonly string[]): T | ModelMessage[] {
  if (pruned.length === 0) return messages;
  return Array.from(messages, (message) => (message.role === 'tool' ? toolMessageView(message, pruned) : message));
}
