import type { ModelMessage } from 'ai';

/** An answer to an approval request, as the AI SDK writes it in the messages (`tool-approval-response`). */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/**
 * The approval answers a call brings: the `tool-approval-response` parts of the tool messages after
 * the last assistant message, which is how `addToolApprovalResponse` in `useChat` (or an app that
 * calls `generate()` again) answers the requests of the previous call. Older answers in the
 * conversation were given before and are not answers now.
 *
 * @example
 * ```ts
 * approvalAnswers([...history, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'call-1', approved: true }] }]);
 * // [{ approvalId: 'call-1', approved: true }]
 * ```
 */
export function approvalAnswers(messages: readonly ModelMessage[]): ApprovalAnswer[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role !== 'assistant') start--;
  return messages.slice(start).flatMap((message) => {
    if (message.role !== 'tool') return [];
    return message.content.flatMap((part) =>
      part.type === 'tool-approval-response'
        ? [{ approvalId: part.approvalId, approved: part.approved, ...(part.reason !== undefined ? { reason: part.reason } : {}) }]
        : [],
    );
  });
}
