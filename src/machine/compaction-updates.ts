import type { CompactionActorOutput } from '../actors/compaction-actor.js';
import type { CompactionReason } from '../core/compaction-config.js';
import { contextTokens } from '../context/token-estimate.js';
import type { AgentEvent } from '../core/events.js';
import type { AgentContext } from './context.js';
import { errorAnswer, toolMessage, unansweredToolCalls } from '../core/history.js';
import { MessageHistory } from '../core/message-history.js';
import { endStep } from './run-updates.js';
import { activeRun, unchanged, type Update } from './update.js';

/** The context's size in tokens: the last call's provider usage plus an estimate of what was added since. */
export function contextTokensOf(context: AgentContext): number {
  return contextTokens({
    messages: context.messages,
    instructions: context.config.instructions,
    ...(context.usageMark ? { mark: context.usageMark } : {}),
  });
}

const CUT_OFF_CALL = 'Tool call not executed: the answer was cut off at the output limit (finishReason "length").';

/**
 * Starts a compaction. After a `length` finish, calls that the cut-off answer
 * made are answered first, so the history stays valid.
 */
export function beginCompaction(context: AgentContext, reason: CompactionReason): Update {
  const run = activeRun(context);
  const events: AgentEvent[] = [];
  let messages = context.messages;
  if (reason === 'length') {
    const dangling = unansweredToolCalls(messages, run.startIndex);
    if (dangling.length > 0) {
      const message = toolMessage(dangling.map((call) => errorAnswer(call, CUT_OFF_CALL)));
      messages = messages.append(message);
      events.push({ type: 'message', runId: run.id, message });
    }
  }
  // A length finish ends its step (the run goes on with a new one); an overflow re-calls the same step.
  const stepEnded = reason === 'length' ? endStep(context) : undefined;
  events.push(...(stepEnded?.events ?? []));
  const tokensBefore = contextTokensOf({ ...context, messages });
  // An overflow re-calls the same step; a threshold or length compaction comes before the next one.
  const step = reason === 'overflow' ? run.steps : run.steps + 1;
  events.push({ type: 'compaction-start', runId: run.id, step, reason, tokensBefore });
  const stepOpen = stepEnded ? false : run.stepOpen;
  return {
    context: { ...context, messages, run: { ...run, stepOpen, compactions: run.compactions + 1, compaction: { reason, tokensBefore, step } } },
    events,
  };
}

/** Applies a compaction's result: pruned tool outputs, or the history with a summary in place of its older part. */
export function applyCompaction(context: AgentContext, output: CompactionActorOutput): Update {
  const run = activeRun(context);
  if (!run.compaction) return unchanged(context);
  const { compaction, ...rest } = run;
  const end: AgentEvent = {
    type: 'compaction-end',
    runId: run.id,
    step: compaction.step,
    reason: compaction.reason,
    kind: output.kind,
    tokensBefore: compaction.tokensBefore,
    tokensAfter: output.tokensAfter,
  };
  // Until the next call's provider count, the compaction's own figure is the context's size: the
  // provider's last count still includes what was just pruned or summarised.
  if (output.kind === 'pruned') {
    const usageMark = { tokens: output.tokensAfter, messageCount: context.messages.length };
    return { context: { ...context, prunedToolCallIds: output.prunedToolCallIds, usageMark, run: rest }, events: [end] };
  }
  const removed = context.messages.length - output.messages.length;
  return {
    context: {
      ...context,
      usageMark: { tokens: output.tokensAfter, messageCount: output.messages.length },
      messages: MessageHistory.from(output.messages),
      prunedToolCallIds: [],
      run: { ...rest, startIndex: Math.max(1, run.startIndex - removed) },
    },
    events: [end],
  };
}
