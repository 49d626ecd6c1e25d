import type { ModelMessage, ToolApprovalConfiguration, ToolApprovalStatus, ToolSet } from 'ai';
import type { StepToolCall } from '../core/step.js';
import type { ApprovalDecision } from '../core/callbacks.js';

/** The AI SDK's `toolApproval` setting, as `ToolLoopAgent` takes it: one function for every call, or a status or function per tool. */
export type ToolApproval<TOOLS extends ToolSet = ToolSet> = ToolApprovalConfiguration<TOOLS, unknown>;

/** The AI SDK's verdict for one call, as loopchart's approval decision; `undefined` when it has none (`not-applicable`). */
export interface ToolApprovalVerdict {
  decision: ApprovalDecision;
  /** The status's `reason`: shown to the approver for `ask`, and to the model for `deny`. */
  reason?: string;
}

const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;

/** Whether the AI SDK's own approval settings ask anything of any call: a `toolApproval`, or a tool with `needsApproval`. */
export function hasToolApproval(tools: ToolSet, toolApproval: ToolApproval | undefined): boolean {
  return toolApproval !== undefined || Object.values(tools).some((tool) => tool.needsApproval != null);
}

/**
 * What the AI SDK's approval settings say of one valid call, decided as `ToolLoopAgent` decides it:
 * `toolApproval` first (a function for every call, else the tool's entry), then the tool's own
 * `needsApproval` (`true`, or a function of the input). `approved` is `allow`, `denied` is `deny`,
 * `user-approval` is `ask`; `not-applicable` (or nothing configured) is no verdict.
 */
export async function decideToolApproval(
  call: Pick<StepToolCall, 'toolCallId' | 'toolName' | 'input'>,
  { tools, toolApproval, messages }: { tools: ToolSet; toolApproval: ToolApproval | undefined; messages: ModelMessage[] },
): Promise<ToolApprovalVerdict | undefined> {
  const tool = own(tools, call.toolName);
  const toolCall = { type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ...(tool?.type === 'dynamic' ? { dynamic: true as const } : {}) };
  if (typeof toolApproval === 'function') {
    return verdictOf(await toolApproval({ toolCall: toolCall, tools, toolsContext: {}, runtimeContext: undefined, messages }));
  }
  const configured = own(toolApproval as Record<string, unknown> | undefined, call.toolName);
  if (configured != null) {
    const status =
      typeof configured === 'function'
        ? await (configured as (input: unknown, options: unknown) => ToolApprovalStatus | PromiseLike<ToolApprovalStatus>)(call.input, {
            toolCallId: call.toolCallId,
            messages,
            toolContext: undefined,
            runtimeContext: undefined,
          })
        : (configured as ToolApprovalStatus);
    return verdictOf(status);
  }
  if (tool?.needsApproval == null) return undefined;
  const needsApproval =
    typeof tool.needsApproval === 'function'
      ? await tool.needsApproval(call.input, { toolCallId: call.toolCallId, messages, context: undefined as never })
      : tool.needsApproval;
  return needsApproval ? { decision: 'ask' } : undefined;
}

function verdictOf(status: ToolApprovalStatus): ToolApprovalVerdict | undefined {
  if (status === undefined) return undefined;
  const { type, reason } = typeof status === 'string' ? { type: status, reason: undefined } : status;
  const decision = ({ 'not-applicable': undefined, approved: 'allow', denied: 'deny', 'user-approval': 'ask' } as const)[type];
  if (decision === undefined) {
    if (type === 'not-applicable') return undefined;
    throw new Error(`toolApproval answered ${JSON.stringify(status)}, not a ToolApprovalStatus ('not-applicable', 'approved', 'denied' or 'user-approval')`);
  }
  return { decision, ...(reason !== undefined ? { reason } : {}) };
}

const strictness: Record<ApprovalDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of two decisions: `deny` over `ask` over `allow` (loopchart's `approval` and the AI SDK's settings both hold). */
export function stricterDecision(a: ApprovalDecision, b: ApprovalDecision): ApprovalDecision {
  return strictness[a] >= strictness[b] ? a : b;
}
