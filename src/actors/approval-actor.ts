import type { ModelMessage, ToolSet } from 'ai';
import type { MessageHistory } from '../core/message-history.js';
import { decideToolApproval, stricterDecision, type ToolApproval } from '../approval/tool-approval.js';
import { fromPromise } from 'xstate';
import { decideByRules, type ApprovalDecision, type ApprovalPolicy } from '../approval/approval-policy.js';
import { errorMessage } from '../core/error-message.js';
import { toolCallFingerprint } from '../resilience/doom-loop.js';
import type { StepToolCall } from '../core/step.js';

export interface ApprovalActorInput {
  runId: string;
  step: number;
  calls: StepToolCall[];
  messages: MessageHistory;
  /** With `doomLoop.action: 'ask'`: the fingerprint of the call that repeated too often. */
  doomLoopFingerprint?: string;
}

/** One call's decision and why a person is asked, when they are. */
export interface ApprovalVerdict {
  decision: ApprovalDecision;
  reason: 'policy' | 'doom-loop';
  /** Why a call was denied without asking (a failing policy, `toolApproval`'s reason). */
  message?: string;
}

/** The AI SDK's own approval settings an agent honours besides its `approval` policy. */
export interface AISDKApproval {
  tools: ToolSet;
  toolApproval?: ToolApproval;
}

/**
 * The approval actor: decides every call of a step with the policy (rules or
 * a function, possibly async) and with the AI SDK's settings (`toolApproval`,
 * a tool's `needsApproval`); the stricter decision holds. A policy or setting
 * that throws denies its call (fail closed). A call that repeats into a doom
 * loop is asked about whatever the policy says (unless it is denied outright).
 */
export function createApprovalActor(policy: ApprovalPolicy | undefined, aiSdk: AISDKApproval = { tools: {} }) {
  return fromPromise<ApprovalVerdict[], ApprovalActorInput>(async ({ input, signal }) => {
    // The AI SDK's needsApproval and toolApproval get the messages the step was sent: the history without the step's own answer.
    const history = input.messages;
    const messages = history.toArray() as ModelMessage[];
    const stepInput = history.at(-1)?.role === 'assistant' ? history.slice(0, -1) : messages;
    const decide = async (call: StepToolCall): Promise<ApprovalVerdict> => {
      let decision: ApprovalDecision = 'allow';
      if (policy !== undefined && !call.invalid) {
        try {
          decision =
            typeof policy === 'function'
              ? await policy(call, { runId: input.runId, step: input.step, messages, signal })
              : decideByRules(policy, call);
        } catch (error) {
          return { decision: 'deny', reason: 'policy', message: `the approval policy failed (${errorMessage(error)})` };
        }
        if (decision !== 'allow' && decision !== 'deny' && decision !== 'ask') {
          return { decision: 'deny', reason: 'policy', message: `the approval policy answered ${JSON.stringify(decision)}, not allow, deny or ask` };
        }
      }
      let message: string | undefined;
      if (!call.invalid) {
        try {
          const verdict = await decideToolApproval(call, { tools: aiSdk.tools, toolApproval: aiSdk.toolApproval, messages: stepInput });
          if (verdict !== undefined && stricterDecision(decision, verdict.decision) === verdict.decision && verdict.decision !== decision) {
            decision = verdict.decision;
            if (decision === 'deny') message = verdict.reason;
          }
        } catch (error) {
          return { decision: 'deny', reason: 'policy', message: `the tool's approval setting failed (${errorMessage(error)})` };
        }
      }
      if (decision !== 'deny' && input.doomLoopFingerprint !== undefined && toolCallFingerprint(call) === input.doomLoopFingerprint) {
        return { decision: 'ask', reason: 'doom-loop' };
      }
      return { decision, reason: 'policy', ...(message !== undefined ? { message } : {}) };
    };
    return Promise.all(input.calls.map(decide));
  });
}
