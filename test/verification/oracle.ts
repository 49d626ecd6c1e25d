import type { AgentMachineEvent } from '../../src/machine/agent-setup.js';
import type { AgentContext, ApprovalState, RunState } from '../../src/machine/context.js';
import { toolCallFingerprint } from '../../src/resilience/doom-loop.js';
import { isOverContextBudget } from '../../src/machine/guards.js';
import type { ErrorKind, Outcome } from '../../src/core/result.js';
import type { AgentSnapshot } from './agent-model.js';

/**
 * An independent reading of the documented decision table
 * (docs/architecture.md, docs/context.md, docs/human-in-the-loop.md): given
 * the snapshot before an event and the event, does the run end, and how? It
 * reads the context's counters (steps, attempts, compactions, streaks,
 * approvals, answers) but none of the machine's guards.
 */
export type Verdict = { ends: false } | { ends: true; outcome: Outcome; errorKind?: ErrorKind };

const goesOn: Verdict = { ends: false };
const ends = (outcome: Outcome, errorKind?: ErrorKind): Verdict => ({ ends: true, outcome, ...(errorKind ? { errorKind } : {}) });

/** docs/resilience.md: the kinds a later attempt may get past. */
const RETRYABLE: readonly ErrorKind[] = ['rate-limit', 'overloaded', 'server', 'network', 'stream', 'timeout'];

function compactionsLeft(context: AgentContext, run: RunState): boolean {
  return context.config.compaction !== false && run.compactions < context.config.compaction.maxCompactions;
}

/** A step boundary (`nextStep`): over budget with no compaction left ends the run. */
function atStepBoundary(context: AgentContext, run: RunState): Verdict {
  if (isOverContextBudget(context) && !compactionsLeft(context, run)) return ends('context-limit', 'context-overflow');
  return goesOn;
}

/** A tool step is over: with `stopWhen` conditions, `checkingStop` decides first; otherwise the step boundary. */
function endOfToolStep(context: AgentContext, run: RunState): Verdict {
  return context.config.hasStopConditions ? goesOn : atStepBoundary(context, run);
}

/**
 * `toolExec` is entered: with a steering message waiting, or every call
 * denied, nothing starts and the step is over at once.
 */
function enterToolExec(context: AgentContext, run: RunState, everyCallDenied: boolean): Verdict {
  return context.queues.steering.length > 0 || everyCallDenied ? endOfToolStep(context, run) : goesOn;
}

/** The context as the finished call leaves it: its message appended, the provider's count as the new mark. */
function afterFinish(context: AgentContext, event: Extract<AgentMachineEvent, { type: 'llm.finish' }>): AgentContext {
  const messages = event.message ? context.messages.append(event.message) : context.messages;
  const tokens = (event.usage.inputTokens ?? 0) + (event.usage.outputTokens ?? 0);
  return { ...context, messages, ...(tokens > 0 ? { usageMark: { tokens, messageCount: messages.length } } : {}) };
}

function decideLlmEnd(context: AgentContext, run: RunState, event: AgentMachineEvent): Verdict {
  const { config } = context;
  if (run.stop) return ends(run.stop.outcome);
  if (event.type === 'llm.aborted') {
    // An llm actor that aborts unasked (the real one never does): the step ended in no known way,
    // unless the streaks so far are a doom loop or the step limit is reached.
    const doomed = config.doomLoopThreshold > 0 && Object.values(run.doomStreaks).some((streak) => streak >= config.doomLoopThreshold);
    if (doomed && config.doomLoopAction === 'stop') return ends('doom-loop');
    return run.steps >= config.maxSteps ? ends('max-steps') : ends('failed', 'invalid-response');
  }
  if (event.type === 'llm.error') {
    const kind = event.error.kind;
    if (RETRYABLE.includes(kind) && run.attempt < config.retry.maxAttempts) return goesOn;
    if (kind === 'context-overflow') return compactionsLeft(context, run) ? goesOn : ends('context-limit', 'context-overflow');
    return ends('failed', kind);
  }
  if (event.type !== 'llm.finish') return goesOn;
  const calls = event.toolCalls.length;
  switch (event.finishReason) {
    case 'length':
      // A length compaction goes on with a new step: it needs steps left as well as compactions.
      return compactionsLeft(context, run) && run.steps < config.maxSteps ? goesOn : ends('context-limit');
    case 'content-filter':
      return ends('content-filter');
    case 'error':
    case 'interrupted':
      return ends('failed', 'stream');
    case 'tool-calls':
      if (calls === 0) return ends('failed', 'invalid-response');
      break;
    default:
      if (calls === 0) {
        const queued = context.queues.steering.length + context.queues.followUps.length > 0;
        return queued && run.steps < config.maxSteps ? goesOn : ends('completed');
      }
  }
  const threshold = config.doomLoopThreshold;
  const repeated = threshold > 0 && event.toolCalls.some((call) => (run.doomStreaks[toolCallFingerprint(call)] ?? 0) + 1 >= threshold);
  if (repeated && config.doomLoopAction === 'stop') return ends('doom-loop');
  if (run.steps >= config.maxSteps) return ends('max-steps');
  const asksFirst = config.hasApprovalPolicy || (repeated && config.doomLoopAction === 'ask');
  return asksFirst ? goesOn : enterToolExec(afterFinish(context, event), run, false);
}

const isDenied = (approval: ApprovalState) => approval.decision === 'deny' || approval.answer === 'denied';

/** Every approval answered: a denied doom-loop call ends `doom-loop`, a denial with `onDeny: 'stop'` ends `denied`, else the tools run. */
function decideApprovals(context: AgentContext, run: RunState, approvals: ApprovalState[]): Verdict {
  if (approvals.some((approval) => approval.decision === 'ask' && approval.answer === undefined)) {
    // A steering message already waiting ends the wait at once: toolExec skips every call.
    return context.queues.steering.length > 0 ? atStepBoundary(context, run) : goesOn;
  }
  if (approvals.some((approval) => approval.reason === 'doom-loop' && approval.answer === 'denied')) return ends('doom-loop');
  if (context.config.onDeny === 'stop' && approvals.some(isDenied)) return ends('denied');
  return enterToolExec(context, run, approvals.every(isDenied));
}

function decideToolAnswer(context: AgentContext, run: RunState, index: number): Verdict {
  if (run.answers[index] !== null) return goesOn;
  const pending = run.answers.filter((answer, other) => answer === null && other !== index).length;
  // Sequential tools start one by one: a waiting steering message skips the ones not started.
  const skipped = context.config.toolExecution === 'sequential' && context.queues.steering.length > 0;
  return pending === 0 || skipped ? endOfToolStep(context, run) : goesOn;
}

/** The verdict for `event` sent in `before`; `undefined` when the oracle has no opinion. */
export function expectedVerdict(before: AgentSnapshot, event: AgentMachineEvent): Verdict | undefined {
  const context = before.context;
  const run = context.run;
  if (!run) return goesOn;
  const type = event.type;
  if (type === 'agent.abort' || type === 'run.deadline' || type === 'session.writeFailed') {
    const first = run.stop?.outcome ?? (type === 'agent.abort' ? 'aborted' : type === 'run.deadline' ? 'timeout' : 'failed');
    const requests = (run.stop?.requests ?? 0) + 1;
    // The llm state asks the call for what it streamed first; a second request ends the run at once.
    if (before.matches({ running: 'llm' }) && requests < 2) return goesOn;
    return ends(first);
  }
  if (type === 'llm.finish' || type === 'llm.error' || type === 'llm.aborted') return decideLlmEnd(context, run, event);
  // The prepared prompt enters the history, and the first step boundary follows.
  if (type === 'prompt.prepared') return atStepBoundary({ ...context, messages: context.messages.append(...event.messages) }, run);
  if (type === 'prompt.failed') return ends('failed', event.error.kind);
  // Steering while calls await approval ends the wait: toolExec skips every call, and the step is over.
  if (type === 'agent.steer' && before.matches({ running: 'awaitingApproval' })) return endOfToolStep(context, run);
  if (type === 'llm.firstChunk' || type === 'retry.due' || type === 'agent.steer' || type === 'agent.followUp') return goesOn;
  if (type === 'xstate.done.actor.compaction') return goesOn;
  if (type === 'xstate.error.actor.compaction') return ends('context-limit', 'context-overflow');
  if (type === 'xstate.done.actor.approval') {
    const verdicts = (event as { output: Array<Omit<ApprovalState, 'answer'>> }).output;
    return decideApprovals(context, run, verdicts);
  }
  if (type === 'agent.approve' || type === 'agent.deny' || type === 'approval.expired') {
    const calls = run.step?.status === 'finished' ? run.step.toolCalls : [];
    const approvals = (run.approvals ?? []).map((approval, index): ApprovalState => {
      if (approval.decision !== 'ask' || approval.answer !== undefined) return approval;
      if (type === 'approval.expired') return { ...approval, answer: 'denied' };
      if (calls[index]?.toolCallId !== event.toolCallId) return approval;
      return { ...approval, answer: type === 'agent.approve' ? 'approved' : 'denied' };
    });
    return decideApprovals(context, run, approvals);
  }
  if (type === 'tool.answer') return decideToolAnswer(context, run, event.output.index);
  // A crashed tool runner answers every call still open: the step is over.
  if (type === 'xstate.error.actor.tools') return run.answers.some((answer) => answer === null) ? endOfToolStep(context, run) : goesOn;
  // A stopWhen condition holds: the run is complete; otherwise the step boundary follows.
  if (type === 'xstate.done.actor.stopCondition') return (event as { output: unknown }).output === true ? ends('completed') : atStepBoundary(context, run);
  if (type === 'xstate.error.actor.stopCondition') return ends('failed', 'invalid-request');
  return undefined;
}
