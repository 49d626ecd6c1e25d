import type { ApprovalVerdict } from '../actors/approval-actor.js';
import type { StepToolCall } from '../core/step.js';
import type { AgentEvent, ToolDenial } from '../core/events.js';
import type { AgentContext, ApprovalState, RunState } from './context.js';
import { activeRun, unchanged, withRun, type Update } from './update.js';

/** The calls of the finished step, which approvals and tool execution index into. */
export function stepCalls(run: RunState): StepToolCall[] {
  return run.step?.status === 'finished' ? run.step.toolCalls : [];
}

/** Denied by the policy, or by an answer. */
export function isDenied(approval: ApprovalState | undefined): boolean {
  return approval !== undefined && (approval.decision === 'deny' || approval.answer === 'denied');
}

export function isUnanswered(approval: ApprovalState): boolean {
  return approval.decision === 'ask' && approval.answer === undefined;
}

/** What the model reads for a denied call. */
export function denialMessage(approval: ApprovalState): string {
  if (approval.decision === 'deny') return `Tool call denied by the approval policy${approval.message ? `: ${approval.message}` : '.'}`;
  return `The user denied this tool call${approval.message ? `: ${approval.message}` : '.'}`;
}

/** How a denied call's `tool-result` says it was denied: by a policy (automatic) or by a person. */
export function denialOf(approval: ApprovalState): ToolDenial {
  return { automatic: approval.decision === 'deny', ...(approval.message !== undefined ? { reason: approval.message } : {}) };
}

/** Records the policy's verdicts and asks about every `ask`, with one `approval-request` each. */
export function recordApprovalVerdicts(context: AgentContext, verdicts: ApprovalVerdict[], now: number): Update {
  const run = activeRun(context);
  const calls = stepCalls(run);
  const approvals: ApprovalState[] = verdicts.map((verdict) => ({
    decision: verdict.decision,
    reason: verdict.reason,
    ...(verdict.message !== undefined ? { message: verdict.message } : {}),
  }));
  const events: AgentEvent[] = [];
  approvals.forEach((approval, index) => {
    const call = calls[index];
    if (call && approval.decision === 'deny') events.push(policyDenialResult(run, call, approval));
    if (call && approval.decision === 'ask') {
      events.push({
        type: 'approval-request',
        runId: run.id,
        step: run.steps,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
        reason: approval.reason,
      });
    }
  });
  const timeout = context.config.approvalTimeoutMs;
  const asks = approvals.some(isUnanswered);
  const { approvalDeadline: _previous, ...rest } = run;
  return withRun(context, { ...rest, approvals, ...(asks && timeout !== undefined ? { approvalDeadline: now + timeout } : {}) }, events);
}

/** A policy's denial, reported with its verdict; `beginToolExec` answers the call without reporting it again. */
function policyDenialResult(run: RunState, call: StepToolCall, approval: ApprovalState): AgentEvent {
  return unrunCallResult(run, call, denialMessage(approval), denialOf(approval));
}

/** The `tool-result` event of a call answered without running (denied, skipped, over the cap). */
export function unrunCallResult(run: RunState, call: StepToolCall, message: string, denied?: ToolDenial): AgentEvent {
  return {
    type: 'tool-result',
    runId: run.id,
    step: run.steps,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: message,
    isError: true,
    durationMs: 0,
    ...(denied ? { denied } : {}),
  };
}

/** Answers the waiting `ask` for `toolCallId`; anything else (unknown, already answered) changes nothing. */
export function answerApproval(context: AgentContext, toolCallId: string, answer: 'approved' | 'denied', message?: string): Update {
  const run = activeRun(context);
  const calls = stepCalls(run);
  const index = (run.approvals ?? []).findIndex((approval, i) => calls[i]?.toolCallId === toolCallId && isUnanswered(approval));
  if (index < 0 || !run.approvals) return unchanged(context);
  const approvals = run.approvals.slice();
  approvals[index] = { ...approvals[index]!, answer, ...(message !== undefined ? { message } : {}) };
  return withRun(context, { ...run, approvals });
}

/** Denies everything still waiting (the approval timeout). */
export function denyUnanswered(context: AgentContext, message: string): Update {
  const run = activeRun(context);
  if (!run.approvals) return unchanged(context);
  const approvals = run.approvals.map((approval) => (isUnanswered(approval) ? { ...approval, answer: 'denied' as const, message } : approval));
  return withRun(context, { ...run, approvals });
}

/** Tool-call ids that wait for `approve`/`deny` right now. */
/** A tool call that waits for a person's answer. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The policy asked, or the call repeated into a doom loop. */
  reason: ApprovalState['reason'];
}

/** The calls of the step that wait for an answer, in call order. */
export function pendingApprovals(context: AgentContext): PendingApproval[] {
  const run = context.run;
  if (!run?.approvals) return [];
  const calls = stepCalls(run);
  return run.approvals.flatMap((approval, index) => {
    const call = calls[index];
    return isUnanswered(approval) && call ? [{ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, reason: approval.reason }] : [];
  });
}

export function pendingApprovalIds(context: AgentContext): string[] {
  const run = context.run;
  if (!run?.approvals) return [];
  const calls = stepCalls(run);
  return run.approvals.flatMap((approval, index) => (isUnanswered(approval) && calls[index] ? [calls[index].toolCallId] : []));
}
