import type { ModelMessage } from 'ai';
import type { LlmActorEvent } from '../actors/llm-actor.js';
import type { ToolCallOutput } from '../actors/tool-call.js';
import type { AgentEvent } from '../core/events.js';
import type { Outcome, RunError, RunResult } from '../core/result.js';
import type { AgentContext, RunState, RunStop, StepDetails, StepRecord } from './context.js';
export type { Update } from './update.js';
import { nextDoomStreaks } from '../resilience/doom-loop.js';
import { errorAnswer, toolCrashMessage, toolMessage, unansweredToolCalls, type ToolAnswer } from '../core/history.js';
import type { MessageHistory } from '../core/message-history.js';
import { addUsage, emptyUsage } from '../core/usage.js';
import { addCosts, type UsageCost } from '../core/cost.js';
import { denialMessage, denialOf, isDenied, stepCalls, unrunCallResult } from './approval-updates.js';
import type { ToolDenial } from '../core/events.js';
import { deliverSteering } from './queue-updates.js';
import { activeRun, withRun, type Update } from './update.js';
import { retryDelayMs } from '../resilience/retry-policy.js';

/** The run's lifecycle as pure context updates: start, steps, retries, tools, end. */

/** A run begins: `run-start` reports the prompt as given; it enters the history once `preparing` is done. */
export function beginRun(context: AgentContext, prompt: ModelMessage[], runId: string, now: number): Update {
  const run: RunState = {
    id: runId,
    startedAt: now,
    startIndex: context.messages.length,
    steps: 0,
    toolCalls: 0,
    usage: emptyUsage,
    stepUsage: emptyUsage,
    doomStreaks: {},
    text: '',
    stepOpen: false,
    calls: [],
    answers: [],
    nextCall: 0,
    attempt: 1,
    compactions: 0,
    prompt,
    ...(context.config.timeouts.totalMs !== undefined ? { deadline: now + context.config.timeouts.totalMs } : {}),
  };
  return { context: { ...context, run }, events: [{ type: 'run-start', runId, prompt }] };
}

/** The prepared prompt enters the history (with a steering message that waited for the run). */
export function acceptPrompt(context: AgentContext, prompt: ModelMessage[]): Update {
  const { prompt: _given, ...run } = activeRun(context);
  const accepted: Update = {
    context: { ...context, messages: context.messages.append(...prompt), run },
    events: prompt.map((message): AgentEvent => ({ type: 'message', runId: run.id, message })),
  };
  const steered = deliverSteering(accepted.context, run.id);
  return { context: steered.context, events: [...accepted.events, ...steered.events] };
}

export function beginStep(context: AgentContext): Update {
  const run = activeRun(context);
  const steps = run.steps + 1;
  const { step: _previous, retry: _retry, stepCost: _stepCost, stepDetails: _stepDetails, rejectedOutput: _rejected, ...rest } = run;
  return {
    context: { ...context, run: { ...rest, steps, attempt: 1, stepOpen: true, stepUsage: emptyUsage } },
    events: [{ type: 'start-step', runId: run.id, step: steps }],
  };
}

/** Schedules the next attempt of a failed call: the deadline is kept in the context. */
export function scheduleRetry(context: AgentContext, now: number, random: () => number): Update {
  const run = activeRun(context);
  if (run.step?.status !== 'failed') return { context, events: [] };
  const error = run.step.error;
  const attempt = run.attempt + 1;
  const delayMs = retryDelayMs({
    nextAttempt: attempt,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    config: context.config.retry,
    random,
  });
  return {
    context: { ...context, run: { ...run, retry: { attempt, delayMs, resumeAt: now + delayMs } } },
    events: [{ type: 'retry', runId: run.id, step: run.steps, attempt, delayMs, error }],
  };
}

/** The retry wait is over: the same step is called again, as its next attempt. */
export function beginAttempt(context: AgentContext): Update {
  const run = activeRun(context);
  const { step: _failed, retry, ...rest } = run;
  return { context: { ...context, run: { ...rest, attempt: retry?.attempt ?? run.attempt + 1 } }, events: [] };
}

type StepEnd = Extract<LlmActorEvent, { type: 'llm.finish' | 'llm.aborted' }>;

function appendStepOutput(context: AgentContext, run: RunState, event: StepEnd): { messages: MessageHistory; events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  if (event.message === undefined) return { messages: context.messages, events };
  events.push({ type: 'message', runId: run.id, message: event.message });
  for (const call of event.toolCalls) {
    events.push({
      type: 'tool-call',
      runId: run.id,
      step: run.steps,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      ...(call.invalid ? { invalid: true, error: { name: call.errorName ?? 'Error', message: call.error ?? 'invalid tool call' } } : {}),
    });
  }
  return { messages: context.messages.append(event.message), events };
}

export function recordFinishedStep(context: AgentContext, event: Extract<LlmActorEvent, { type: 'llm.finish' }>): Update {
  const current = activeRun(context);
  // A copy without the last step's parsed answer only when there is one (a rest copy of the run is slow).
  const run = current.output === undefined ? current : withoutOutput(current);
  const { messages, events } = appendStepOutput(context, run, event);
  const warnings = (event.streamErrors ?? []).map((error): AgentEvent => ({ type: 'stream-warning', runId: run.id, step: run.steps, attempt: run.attempt, error }));
  const tokens = (event.usage.inputTokens ?? 0) + (event.usage.outputTokens ?? 0);
  const cost = runCost(run, event.cost);
  // Optional fields are set one by one, in the order a spread would give them: a conditional spread
  // costs an object and a generic copy each, and this runs at every step.
  const next: RunState = { ...withoutCosts(run), usage: addUsage(run.usage, event.usage), stepUsage: event.usage };
  if (cost !== undefined) next.cost = cost;
  if (event.cost !== undefined) next.stepCost = event.cost;
  next.text = event.text;
  if (event.output !== undefined) next.output = event.output;
  next.finishReason = event.finishReason;
  next.stepDetails = stepDetailsOf(event);
  next.doomStreaks = nextDoomStreaks(run.doomStreaks, event.toolCalls);
  next.step = { status: 'finished', finishReason: event.finishReason, toolCalls: event.toolCalls };
  if (context.config.hasStopConditions) next.stepRecords = [...(run.stepRecords ?? []), stepRecord(event)];
  const updated: AgentContext = { ...context, messages };
  if (tokens > 0) updated.usageMark = { tokens, messageCount: messages.length };
  updated.run = next;
  return { context: updated, events: warnings.length > 0 ? [...warnings, ...events] : events };
}

/** What a finished call reported of itself, for its `finish-step`. */
function stepDetailsOf(event: Extract<LlmActorEvent, { type: 'llm.finish' }>): StepDetails {
  const details: StepDetails = {};
  if (event.rawFinishReason !== undefined) details.rawFinishReason = event.rawFinishReason;
  if (event.callModel !== undefined) details.model = event.callModel;
  if (event.response !== undefined) details.response = event.response;
  if (event.warnings !== undefined) details.warnings = event.warnings;
  return details;
}

function withoutOutput(run: RunState): RunState {
  const { output: _output, ...rest } = run;
  return rest;
}

/** The run without its costs, which the finished step replaces (a copy only when there are some). */
function withoutCosts(run: RunState): RunState {
  if (run.cost === undefined && run.stepCost === undefined) return run;
  const { cost: _cost, stepCost: _stepCost, ...rest } = run;
  return rest;
}

/** The run's cost with this step's: known only while every token of the run had a price. */
function runCost(run: RunState, stepCost: UsageCost | undefined): UsageCost | undefined {
  if (stepCost === undefined) return undefined;
  if (run.cost !== undefined) return addCosts(run.cost, stepCost);
  return (run.usage.totalTokens ?? 0) > 0 ? undefined : stepCost;
}

function stepRecord(event: Extract<LlmActorEvent, { type: 'llm.finish' }>): StepRecord {
  return {
    finishReason: event.finishReason,
    usage: event.usage,
    text: event.text,
    toolCalls: event.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    ...(event.cost !== undefined ? { cost: event.cost } : {}),
  };
}

/**
 * A failed call leaves nothing in the history: what it streamed is not part of the conversation.
 * Its tokens still count in the run's usage and cost when the provider reported them (an answer
 * that did not fit the output schema, a finish that reported an error): they were billed.
 */
export function recordFailedStep(context: AgentContext, event: Pick<Extract<LlmActorEvent, { type: 'llm.error' }>, 'error' | 'usage' | 'cost' | 'rejected'>): Update {
  const active = activeRun(context);
  const run = event.rejected ? { ...active, rejectedOutput: event.rejected } : active;
  const step = { status: 'failed' as const, error: event.error };
  if (event.usage === undefined) return { context: { ...context, run: { ...run, step } }, events: [] };
  const cost = runCost(run, event.cost);
  return {
    context: { ...context, run: { ...withoutRunCost(run), usage: addUsage(run.usage, event.usage), ...(cost !== undefined ? { cost } : {}), step } },
    events: [],
  };
}

/** The run without its cost, which a failed attempt's usage replaces (a copy only when there is one). */
function withoutRunCost(run: RunState): RunState {
  if (run.cost === undefined) return run;
  const { cost: _cost, ...rest } = run;
  return rest;
}

/** An aborted call keeps what it streamed: the user saw it. */
export function recordAbortedStep(context: AgentContext, event: Extract<LlmActorEvent, { type: 'llm.aborted' }>): Update {
  const run = activeRun(context);
  const { messages, events } = appendStepOutput(context, run, event);
  return {
    context: { ...context, messages, run: { ...run, text: event.text, step: { status: 'aborted' } } },
    events,
  };
}

/** Asks the run to stop; the first request decides the outcome, later ones only count (a repeated abort forces the stop). */
export function requestStop(context: AgentContext, outcome: RunStop['outcome'], reason: string, error?: RunError): Update {
  const run = activeRun(context);
  const stop: RunStop = run.stop ? { ...run.stop, requests: run.stop.requests + 1 } : { outcome, reason, requests: 1, ...(error ? { error } : {}) };
  return { context: { ...context, run: { ...run, stop } }, events: [] };
}

/** Answers a call without running it, reporting the answer as an error `tool-result` (unless `reported` already). */
function answerWithoutRunning(run: RunState, index: number, message: string, events: AgentEvent[], denied?: ToolDenial, reported = false): ToolAnswer {
  const call = run.calls[index]!;
  if (!reported) events.push(unrunCallResult(run, call, message, denied));
  return errorAnswer(call, message);
}

/** The step's calls become pending; denied calls are answered at once with their denial. */
export function beginToolExec(context: AgentContext): Update {
  const run = activeRun(context);
  const calls = stepCalls(run);
  const events: AgentEvent[] = [];
  const pending: RunState = { ...run, calls, answers: calls.map(() => null), nextCall: 0 };
  const cap = context.config.maxToolCallsPerStep ?? calls.length;
  pending.answers = calls.map((_, index) => {
    // Over the cap nothing is started: the cost of a step stays bounded however many calls the model makes.
    if (index >= cap) return answerWithoutRunning(pending, index, tooManyCallsMessage(calls.length, cap), events);
    const approval = run.approvals?.[index];
    // A policy's denial was reported with its verdict (as the AI SDK reports an automatic denial at once).
    return approval && isDenied(approval) ? answerWithoutRunning(pending, index, denialMessage(approval), events, denialOf(approval), approval.decision === 'deny') : null;
  });
  return withRun(context, pending, events);
}

function tooManyCallsMessage(count: number, cap: number): string {
  return `Tool call not run: this step made ${count} tool calls and at most ${cap} run per step (maxToolCallsPerStep). Make fewer calls per step.`;
}

export const STEERING_SKIP_MESSAGE = 'Tool call skipped: a new user message arrived before it ran.';

/**
 * Which calls start now: all pending ones (parallel) or the next one
 * (sequential). When a steering message waits, no further call starts: the
 * ones not yet started are answered as skipped.
 */
export function startNextTools(context: AgentContext): Update & { start: number[] } {
  const run = activeRun(context);
  const events: AgentEvent[] = [];
  const answers = run.answers.slice();
  const pendingFrom = (from: number) => answers.findIndex((answer, index) => index >= from && answer === null);

  if (context.queues.steering.length > 0) {
    for (let index = run.nextCall; index < answers.length; index++) {
      if (answers[index] === null) answers[index] = answerWithoutRunning(run, index, STEERING_SKIP_MESSAGE, events);
    }
    return { ...withRun(context, { ...run, answers, nextCall: answers.length }, events), start: [] };
  }
  if (context.config.toolExecution === 'parallel') {
    const start = answers.flatMap((answer, index) => (index >= run.nextCall && answer === null ? [index] : []));
    return { ...withRun(context, { ...run, nextCall: answers.length }), start };
  }
  const next = pendingFrom(run.nextCall);
  if (next < 0) return { ...withRun(context, { ...run, nextCall: answers.length }), start: [] };
  return { ...withRun(context, { ...run, nextCall: next + 1 }), start: [next] };
}

/** Records the answer of call `output.index` of step `step`; an answer to another step, or a second one, changes nothing. */
export function recordToolAnswer(context: AgentContext, step: number, output: ToolCallOutput): Update {
  const run = activeRun(context);
  const call = run.calls[output.index];
  if (step !== run.steps || call === undefined || run.answers[output.index] !== null) return { context, events: [] };
  const answers = run.answers.slice();
  answers[output.index] = output.answer;
  return {
    context: { ...context, run: { ...run, answers, toolCalls: run.toolCalls + 1 } },
    events: [
      {
        type: 'tool-result',
        runId: run.id,
        step: run.steps,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: output.output,
        isError: output.isError,
        durationMs: output.durationMs,
      },
    ],
  };
}

/**
 * The run's tool runner crashed: the run remembers why, and every call of the step that has no
 * answer yet gets an error answer saying so (outside a tool step there is none).
 */
export function recordToolRunnerCrash(context: AgentContext, crash: string): Update {
  const run = activeRun(context);
  const open = run.answers.flatMap((answer, index) => (answer === null ? [index] : []));
  return answerWithToolRunnerCrash({ ...context, run: { ...run, toolRunnerCrash: crash } }, open, crash);
}

/** Answers calls `indexes` of the step with the tool runner's crash, after `events`. */
export function answerWithToolRunnerCrash(context: AgentContext, indexes: readonly number[], crash: string, events: AgentEvent[] = []): Update {
  let current = context;
  const all = [...events];
  for (const index of indexes) {
    const run = activeRun(current);
    const call = run.calls[index]!;
    const message = toolCrashMessage(call.toolName, crash);
    const update = recordToolAnswer(current, run.steps, { index, answer: errorAnswer(call, message), output: message, isError: true, durationMs: 0 });
    current = update.context;
    all.push(...update.events);
  }
  return { context: current, events: all };
}

function stepEndEvent(run: RunState): AgentEvent {
  // Built field by field in the order of its type, without conditional spreads: one per step.
  const event: Extract<AgentEvent, { type: 'finish-step' }> = { type: 'finish-step', runId: run.id, step: run.steps } as Extract<AgentEvent, { type: 'finish-step' }>;
  if (run.finishReason !== undefined) event.finishReason = run.finishReason;
  const details = run.stepDetails;
  if (details !== undefined) {
    if (details.rawFinishReason !== undefined) event.rawFinishReason = details.rawFinishReason;
    if (details.model !== undefined) event.model = details.model;
    if (details.response !== undefined) event.response = details.response;
    if (details.warnings !== undefined) event.warnings = details.warnings;
  }
  event.usage = run.stepUsage;
  if (run.stepCost !== undefined) event.cost = run.stepCost;
  event.text = run.text;
  event.toolCalls = run.step?.status === 'finished' ? run.step.toolCalls.length : 0;
  return event;
}

/** All answers are in: they enter the history as one tool message, in call order. */
export function endToolStep(context: AgentContext): Update {
  const run = activeRun(context);
  const message = toolMessage(run.answers.filter((answer): answer is ToolAnswer => answer !== null));
  const ended: AgentContext = {
    ...context,
    messages: context.messages.append(message),
    run: { ...withoutApprovals(run), calls: [], answers: [], nextCall: 0, stepOpen: false },
  };
  const steered = deliverSteering(ended, run.id);
  const events: AgentEvent[] = [{ type: 'message', runId: run.id, message }];
  // A step that waited for approval reported its end when the wait began.
  if (run.stepOpen) events.push(stepEndEvent(run));
  for (const event of steered.events) events.push(event);
  return { context: steered.context, events };
}

/** The run without the step's approvals (a copy only when it has some: a rest copy of the run is slow). */
function withoutApprovals(run: RunState): RunState {
  if (run.approvals === undefined && run.approvalDeadline === undefined) return run;
  const { approvals: _approvals, approvalDeadline: _deadline, ...rest } = run;
  return rest;
}

/** A step that ends without tool calls (its run goes on: a follow-up, a compaction) reports its `finish-step`. */
export function endStep(context: AgentContext): Update {
  const run = activeRun(context);
  if (!run.stepOpen) return { context, events: [] };
  return withRun(context, { ...run, stepOpen: false }, [stepEndEvent(run)]);
}

/** Why a tool call got no real result, as the model will read it. */
export function unansweredReason(outcome: Outcome, context: AgentContext): string {
  switch (outcome) {
    case 'aborted':
      return `Tool call interrupted: the run was aborted (${context.run?.stop?.reason ?? 'no reason given'}).`;
    case 'timeout':
      return `Tool call interrupted: the run's time budget ran out (timeout.totalMs: ${context.config.timeouts.totalMs}).`;
    case 'max-steps':
      return `Tool call not executed: the run reached its step limit (maxSteps: ${context.config.maxSteps}).`;
    case 'doom-loop':
      return `Tool call not executed: the same tool call was repeated ${context.config.doomLoopThreshold} times in a row (doom loop).`;
    case 'denied':
      return 'Tool call not executed: the run stopped because a tool call was denied.';
    case 'failed':
      if (context.run?.stop?.outcome === 'failed') return `Tool call interrupted: ${context.run.stop.reason}.`;
      return `Tool call not executed: the run ended with outcome "${outcome}".`;
    default:
      return `Tool call not executed: the run ended with outcome "${outcome}".`;
  }
}

/**
 * Ends the run: every tool call left without an answer gets one (invariant 2),
 * the result is assembled, and the run state is cleared.
 */
export function endRun(
  context: AgentContext,
  outcome: Outcome,
  error: RunError | undefined,
  now: number,
): Update & { result: RunResult } {
  const run = activeRun(context);
  const reason = unansweredReason(outcome, context);
  const events: AgentEvent[] = [];
  let messages = context.messages;

  const answered = new Set<string>();
  const pendingAnswers = run.calls.map((call, index) => {
    const answer = run.answers[index] ?? errorAnswer(call, reason);
    answered.add(call.toolCallId);
    return answer;
  });
  const calls = stepCalls(run);
  const strays = unansweredToolCalls(messages, run.startIndex)
    .filter((call) => !answered.has(call.toolCallId))
    .map((call) => {
      const approval = run.approvals?.[calls.findIndex((stepCall) => stepCall.toolCallId === call.toolCallId)];
      return errorAnswer(call, approval && isDenied(approval) ? denialMessage(approval) : reason);
    });
  const answers = [...pendingAnswers, ...strays];
  if (answers.length > 0) {
    const message = toolMessage(answers);
    messages = messages.append(message);
    events.push({ type: 'message', runId: run.id, message });
  }
  if (run.stepOpen) events.push(stepEndEvent(run));

  const result: RunResult = {
    outcome,
    text: run.text,
    messages: messages.slice(),
    usage: run.usage,
    ...(run.cost !== undefined ? { cost: run.cost } : {}),
    stepCount: run.steps,
    toolCallCount: run.toolCalls,
    // The AI SDK's views of the run; the agent fills the step ones from the run's events.
    steps: [],
    toolCalls: [],
    toolResults: [],
    responseMessages: messages.slice(run.startIndex).filter((message) => message.role === 'assistant' || message.role === 'tool'),
    reasoning: [],
    reasoningText: undefined,
    warnings: [],
    ...(run.finishReason !== undefined ? { finishReason: run.finishReason } : {}),
    ...(outcome === 'completed' && run.output !== undefined ? { output: run.output } : {}),
    durationMs: Math.max(0, now - run.startedAt),
    ...(error !== undefined ? { error } : {}),
  };
  events.push({ type: 'run-end', runId: run.id, result });
  return { context: { ...context, messages, run: undefined }, events, result };
}
