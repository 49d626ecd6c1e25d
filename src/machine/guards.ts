import type { FinishReason } from 'ai';
import type { Outcome, RunError } from '../core/result.js';
import type { AgentContext, RunState } from './context.js';
import { isRetryableKind } from '../resilience/retry-policy.js';
import { contextBudget } from '../core/compaction-config.js';
import { isDenied, isUnanswered } from './approval-updates.js';
import { contextTokensOf } from './compaction-updates.js';
import { doomLoopFingerprint } from '../resilience/doom-loop.js';
import { hasQueuedMessages } from './queue-updates.js';

/**
 * The `deciding` guards, as pure functions of the context. They are evaluated
 * in the order of the DESIGN table; each is unit-tested on its own.
 */

export type FinishVerdict = { next: 'tools' } | { next: 'end'; outcome: Outcome; error?: RunError };

/**
 * What a finished LLM call means for the run.
 *
 * | finishReason            | tool calls | verdict                       |
 * |-------------------------|------------|-------------------------------|
 * | stop, other, tool-calls | yes        | run the tools                 |
 * | stop, other             | no         | `completed`                   |
 * | tool-calls              | no         | `failed` (invalid-response)   |
 * | length                  | any        | `context-limit`               |
 * | content-filter          | any        | `content-filter`              |
 * | error, interrupted      | any        | `failed` (stream)             |
 *
 * The llm actor already turns `error` and `interrupted` finishes into failed
 * attempts (retried like any `stream` failure, see `failedFinish`), so the
 * rows are a safeguard: the llm actor never sends such a finish on.
 * A step that made tool calls runs them whatever the provider called its
 * finish (some providers report `stop` with tool calls); `length` and
 * `content-filter` win because their tool input may be cut off.
 */
export function finishVerdict(finishReason: FinishReason, toolCallCount: number): FinishVerdict {
  const next = finishNext(finishReason, toolCallCount);
  if (next === 'tools') return { next };
  switch (finishReason) {
    case 'error':
      return { next: 'end', outcome: next, error: { kind: 'stream', message: 'The model stopped with finishReason "error".' } };
    case 'interrupted':
      return {
        next: 'end',
        outcome: next,
        error: { kind: 'stream', message: 'The model stream ended without a finish (finishReason "interrupted").' },
      };
    case 'tool-calls':
      return { next: 'end', outcome: next, error: { kind: 'invalid-response', message: 'The model finished with "tool-calls" but made no tool call.' } };
    default:
      return { next: 'end', outcome: next };
  }
}

/**
 * What {@link finishVerdict} decides, without its objects: `tools`, or the outcome the run ends
 * with. The guards of `deciding` ask it several times at every step.
 */
function finishNext(finishReason: FinishReason, toolCallCount: number): 'tools' | Outcome {
  switch (finishReason) {
    case 'length':
      return 'context-limit';
    case 'content-filter':
      return 'content-filter';
    case 'error':
    case 'interrupted':
      return 'failed';
    case 'tool-calls':
      return toolCallCount > 0 ? 'tools' : 'failed';
    case 'stop':
    case 'other':
    default:
      return toolCallCount > 0 ? 'tools' : 'completed';
  }
}

function finished(run: RunState | undefined) {
  return run?.step?.status === 'finished' ? run.step : undefined;
}

/** Someone asked the run to stop (an abort, its deadline's timer, a failed session write): it ends with that request's outcome. */
export function isStopRequested(context: AgentContext): boolean {
  return context.run?.stop !== undefined;
}

/** A stop was asked for more than once (a second abort forces the run to end at once). */
export function isStopRepeated(context: AgentContext): boolean {
  return (context.run?.stop?.requests ?? 0) > 1;
}

/** The call failed in a way a later attempt may get past (and the provider did not say otherwise), and attempts are left. */
export function canRetry(context: AgentContext): boolean {
  const run = context.run;
  if (run?.step?.status !== 'failed') return false;
  const { error } = run.step;
  return error.retryable !== false && isRetryableKind(error.kind) && run.attempt < context.config.retry.maxAttempts;
}

/** The provider said the context is too long. */
export function isContextOverflow(context: AgentContext): boolean {
  const step = context.run?.step;
  return step?.status === 'failed' && step.error.kind === 'context-overflow';
}

export function hasStepFailed(context: AgentContext): boolean {
  return context.run?.step?.status === 'failed';
}

/** The finished step ends the run with `outcome`. */
export function isFinishedWith(context: AgentContext, outcome: Outcome): boolean {
  const step = finished(context.run);
  if (step === undefined) return false;
  return finishNext(step.finishReason, step.toolCalls.length) === outcome;
}

/** The finished step completes the run (`stop` or `other`, no tool calls). */
export function isCompletedFinish(context: AgentContext): boolean {
  return isFinishedWith(context, 'completed');
}

/** The finished step hit the output limit (`length`): `context-limit`, unless a compaction can make room. */
export function isLengthFinish(context: AgentContext): boolean {
  return isFinishedWith(context, 'context-limit');
}

export function isContentFilterFinish(context: AgentContext): boolean {
  return isFinishedWith(context, 'content-filter');
}

/** The finish itself means failure (`tool-calls` without a call). */
export function isFailingFinish(context: AgentContext): boolean {
  return isFinishedWith(context, 'failed');
}

/** Why the step failed, whether the call itself failed or its finish means failure. */
export function stepError(context: AgentContext): RunError | undefined {
  const step = context.run?.step;
  if (step?.status === 'failed') return step.error;
  if (step?.status !== 'finished') return undefined;
  const verdict = finishVerdict(step.finishReason, step.toolCalls.length);
  return verdict.next === 'end' ? verdict.error : undefined;
}

export function wantsTools(context: AgentContext): boolean {
  const step = finished(context.run);
  return step !== undefined && finishNext(step.finishReason, step.toolCalls.length) === 'tools';
}

export function isDoomLoop(context: AgentContext): boolean {
  const threshold = context.config.doomLoopThreshold;
  return threshold > 0 && context.run !== undefined && doomLoopFingerprint(context.run.doomStreaks, threshold) !== undefined;
}

/** A doom loop, and `doomLoop.action` is `stop`: the run ends `doom-loop` (with `ask`, a person decides instead). */
export function isDoomLoopToStop(context: AgentContext): boolean {
  return context.config.doomLoopAction === 'stop' && isDoomLoop(context);
}

export function isMaxStepsReached(context: AgentContext): boolean {
  return context.run !== undefined && context.run.steps >= context.config.maxSteps;
}

export function areAllToolsAnswered(context: AgentContext): boolean {
  const answers = context.run?.answers;
  return answers !== undefined && answers.every((answer) => answer !== null);
}

/** The run would complete, but steering or follow-up messages wait and steps are left: the same run goes on. */
export function isCompletedWithQueuedMessages(context: AgentContext): boolean {
  return isFinishedWith(context, 'completed') && hasQueuedMessages(context) && !isMaxStepsReached(context);
}

/** The step's tool calls go through the approval actor: a policy is set, or a doom loop is to be asked about. */
export function needsApproval(context: AgentContext): boolean {
  if (!wantsTools(context)) return false;
  return context.config.hasApprovalPolicy || (context.config.doomLoopAction === 'ask' && isDoomLoop(context));
}

/** A steering message waits: it redirects the run, so the step's calls not yet started are skipped. */
export function isSteeringQueued(context: AgentContext): boolean {
  return context.queues.steering.length > 0;
}

export function hasUnansweredApprovals(context: AgentContext): boolean {
  return context.run?.approvals?.some(isUnanswered) ?? false;
}

/** Every call that was asked about has its answer (or none was asked about). */
export function areApprovalsSettled(context: AgentContext): boolean {
  return !hasUnansweredApprovals(context);
}

/** A step's tool calls run one after another (`toolExecution: 'sequential'`). */
export function isSequential(context: AgentContext): boolean {
  return context.config.toolExecution === 'sequential';
}

/** The compaction under way is for a call the provider refused as too long: the same step is called again. */
export function isOverflowCompaction(context: AgentContext): boolean {
  return context.run?.compaction?.reason === 'overflow';
}

/** Every answer is in and a doom-loop call was denied: the run ends `doom-loop`. */
export function isDoomLoopDenied(context: AgentContext): boolean {
  const approvals = context.run?.approvals;
  if (!approvals || hasUnansweredApprovals(context)) return false;
  return approvals.some((approval) => approval.reason === 'doom-loop' && approval.answer === 'denied');
}

/** Every answer is in, something was denied, and `onDeny` is `stop`: the run ends `denied`. */
export function isDeniedStop(context: AgentContext): boolean {
  const approvals = context.run?.approvals;
  if (!approvals || hasUnansweredApprovals(context) || context.config.onDeny !== 'stop') return false;
  return approvals.some(isDenied);
}

/** Compaction is on and the context is over its budget (`contextWindow - reserveTokens`). */
export function isOverContextBudget(context: AgentContext): boolean {
  const compaction = context.config.compaction;
  return compaction !== false && contextTokensOf(context) > contextBudget(compaction);
}

function compactionsLeft(context: AgentContext): boolean {
  const compaction = context.config.compaction;
  return compaction !== false && (context.run?.compactions ?? 0) < compaction.maxCompactions;
}

/** Over budget at a step boundary, with compactions left. */
export function shouldCompact(context: AgentContext): boolean {
  return isOverContextBudget(context) && compactionsLeft(context);
}

/** Over budget at a step boundary, and `maxCompactions` already used: the run ends `context-limit`. */
export function isCompactionExhausted(context: AgentContext): boolean {
  return isOverContextBudget(context) && !compactionsLeft(context);
}

/** The step finished with `length`: compact (forced) and go on with a new step, if compaction is on and compactions and steps are left. */
export function canCompactAfterLength(context: AgentContext): boolean {
  return (
    compactionsLeft(context) &&
    !isMaxStepsReached(context) &&
    isFinishedWith(context, 'context-limit') &&
    context.run?.step?.status === 'finished' &&
    context.run.step.finishReason === 'length'
  );
}

/** The provider said the context is too long: compact (forced) and call again, if compaction is on and compactions are left. */
export function canCompactAfterOverflow(context: AgentContext): boolean {
  return compactionsLeft(context) && isContextOverflow(context);
}

/** `stopWhen` conditions are set: a finished tool step has them checked before the next step. */
export function hasStopConditions(context: AgentContext): boolean {
  return context.config.hasStopConditions === true;
}

/** The stop-condition actor's answer: one of the `stopWhen` conditions holds, so the run ends `completed`. */
export function isStopConditionMet(output: unknown): boolean {
  return output === true;
}
