import type { AgentEvent } from '../core/events.js';
import { pendingApprovals } from './approval-updates.js';
import type { AgentContext } from './context.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval-request' }>;

/**
 * The `approval-request` events of the calls that still wait for an answer, as they were first
 * reported: a session restored in `awaitingApproval` reports them again, since the first ones went
 * to the process that stopped.
 *
 * @example
 * pendingApprovalRequests(actor.getSnapshot().context) // [{ type: 'approval-request', toolCallId: 'call_1', … }]
 */
export function pendingApprovalRequests(context: AgentContext): ApprovalRequest[] {
  const run = context.run;
  if (!run) return [];
  return pendingApprovals(context).map((pending) => ({ type: 'approval-request' as const, runId: run.id, step: run.steps, ...pending }));
}
