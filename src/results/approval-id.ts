/**
 * Approval ids: each call that waits for a person gets one, as each AI SDK approval request does.
 * It is the call's id with a prefix, so that an answer (`tool-approval-response`) names its call.
 */
const APPROVAL_PREFIX = 'approval-';

/** The approval id of a call that waits for a person (its own id, as the AI SDK gives each request one). */
export function approvalIdOf(toolCallId: string): string {
  return `${APPROVAL_PREFIX}${toolCallId}`;
}

/** The tool call an approval id stands for (an id given directly is taken as the call's id). */
export function toolCallIdOf(approvalId: string): string {
  return approvalId.startsWith(APPROVAL_PREFIX) ? approvalId.slice(APPROVAL_PREFIX.length) : approvalId;
}
