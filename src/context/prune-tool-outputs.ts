import type { ModelMessage } from 'ai';
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

/** The view of the history the model sees: pruned tool outputs replaced by a short marker. The history itself is unchanged. */
export function applyPruning(messages: ModelMessage[], pruned: readonly string[]): ModelMessage[] {
  if (pruned.length === 0) return messages;
  const ids = new Set(pruned);
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.content.some((part) => part.type === 'tool-result' && ids.has(part.toolCallId))) return message;
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-result' && ids.has(part.toolCallId) ? { ...part, output: { type: 'text' as const, value: PRUNED_TOOL_OUTPUT } } : part,
      ),
    };
  });
}
