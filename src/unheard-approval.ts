import type { AgentEvent } from './core/events.js';

/** The `code` of the warning {@link warnOfUnheardApproval} emits, for `process.on('warning')` filters. */
export const UNHEARD_APPROVAL_WARNING = 'LOOPCHART_UNHEARD_APPROVAL';

/**
 * What to say when a tool call waits for approval and nothing subscribes to `events$` to hear of
 * it: without an answer the run waits for ever, and a script whose last promise is that run ends
 * with Node's exit code 13 and no word of why.
 *
 * @example
 * unheardApprovalMessage({ type: 'approval-request', runId: 'r1', step: 1, toolCallId: 'c1', toolName: 'write', input: {}, reason: 'policy' })
 * // "run r1 waits for approval of write (c1), and nothing subscribes to agent.events$ to hear of it: …"
 */
export function unheardApprovalMessage(request: Extract<AgentEvent, { type: 'approval-request' }>): string {
  return (
    `run ${request.runId} waits for approval of ${request.toolName} (${request.toolCallId}), and nothing subscribes to agent.events$ to hear of it: ` +
    'it waits until agent.approve(id) or agent.deny(id) answers it (agent.pendingApprovals lists the ids). ' +
    'Subscribe to events$ before run() to answer approval-request events, or set approvalTimeoutMs to deny what is not answered in time.'
  );
}

/**
 * Emits the warning as a Node process warning (shown on stderr by default), where there is a
 * process, for an `approval-request` that nothing hears (`heard`: something subscribes to the
 * `events$` it reaches) and that waits for ever (no `approvalTimeoutMs` ends the wait).
 */
export function warnOfUnheardApproval(event: AgentEvent, heard: boolean, approvalTimeoutMs: number | undefined): void {
  if (event.type !== 'approval-request' || heard || approvalTimeoutMs !== undefined) return;
  if (typeof process === 'undefined' || typeof process.emitWarning !== 'function') return;
  process.emitWarning(unheardApprovalMessage(event), { type: 'LoopchartWarning', code: UNHEARD_APPROVAL_WARNING });
}
