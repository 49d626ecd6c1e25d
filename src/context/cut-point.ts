import type { ModelMessage } from 'ai';
import { estimateMessageTokens } from './token-estimate.js';

/**
 * Where to cut the history for a summary: messages from `from` up to the
 * index are summarised; the newest messages that fit in `keepRecentTokens`
 * (at least the last one) stay verbatim. The cut never separates a tool call
 * from its result: the kept part never starts with a tool message, and a tool
 * message always directly follows the assistant message whose calls it
 * answers. Returns 0 when there is nothing to summarise.
 */
export function findCutPoint(messages: readonly ModelMessage[], keepRecentTokens: number, from = 0): number {
  let kept = 0;
  let cut = messages.length;
  while (cut > from) {
    const tokens = estimateMessageTokens(messages[cut - 1]!);
    if (cut < messages.length && kept + tokens > keepRecentTokens) break;
    kept += tokens;
    cut--;
  }
  while (cut > from && messages[cut]?.role === 'tool') cut--;
  return cut <= from ? 0 : cut;
}
