import { generateId, type ModelMessage } from 'ai';
import { assertEvent, enqueueActions, fromCallback, fromPromise, raise, sendTo, setup } from 'xstate';
import type { ApprovalActorInput, ApprovalVerdict } from '../actors/approval-actor.js';
import type { LlmActorCommand, LlmActorEvent, LlmActorInput } from '../actors/llm-actor.js';
import { deadlineActor } from '../actors/deadline-actor.js';
import { createPrepareActor, type PrepareActorEvent, type PrepareActorInput } from '../actors/prepare-actor.js';
import { createStopConditionActor } from '../actors/stop-condition-actor.js';
import type { ToolStepScope } from '../actors/tool-call.js';
import type { ToolRunnerCommand, ToolRunnerEvent, ToolRunnerInput } from '../actors/tool-runner.js';
import type { AgentEvent } from '../core/events.js';
import { errorMessage } from '../core/error-message.js';
import { limitsFor } from '../resilience/truncate-output.js';
import type { Outcome, RunError } from '../core/result.js';
import type { CompactionActorInput, CompactionActorOutput } from '../actors/compaction-actor.js';
import type { StepLimits } from '../actors/step-watchdog.js';
import type { CompactionReason } from '../core/compaction-config.js';
import { applyPruning } from '../context/prune-tool-outputs.js';
import * as approvals from './approval-updates.js';
import * as compaction from './compaction-updates.js';
import type { AgentContext, AgentMachineInput } from './context.js';
import { doomLoopFingerprint } from '../resilience/doom-loop.js';
import * as guards from './guards.js';
import * as queues from './queue-updates.js';
import * as updates from './run-updates.js';
import type { Update } from './update.js';

/** Events the agent machine accepts. */
export type AgentMachineEvent =
  | { type: 'agent.prompt'; messages: ModelMessage[] }
  | { type: 'agent.abort'; reason?: string }
  | { type: 'agent.approve'; toolCallId: string }
  | { type: 'agent.deny'; toolCallId: string; reason?: string }
  | { type: 'agent.steer'; message: ModelMessage }
  | { type: 'agent.followUp'; message: ModelMessage }
  /** Internal: raised when an abort or the run's deadline asks the current state to stop. */
  | { type: 'run.stop' }
  /** Internal: sent by the deadline actors. */
  | { type: 'run.deadline' }
  | { type: 'retry.due' }
  | { type: 'approval.expired' }
  /** Sent by the agent when a step boundary could not be written to its session: the run must not go on. */
  | { type: 'session.writeFailed'; message: string }
  | PrepareActorEvent
  | LlmActorEvent
  | ToolRunnerEvent
  | { type: `xstate.done.actor.${string}`; output: unknown }
  | { type: `xstate.error.actor.${string}`; error: unknown };

const missingRuntime =
  'agentMachine has no model: bind one with bindImplementations(actor, agentImplementations({ model, tools })) before actor.start(), or use createAgent().';

/** Placeholder actors: an `agentMachine` actor needs real ones bound (see `bindImplementations`, `agentImplementations`). */
const unprovidedLlm = fromCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(({ sendBack }) => {
  sendBack({ type: 'llm.error', error: { kind: 'invalid-request', message: missingRuntime } });
});
const unprovidedTools = fromCallback<ToolRunnerCommand, ToolRunnerInput, ToolRunnerEvent>(({ receive }) => {
  receive(() => {
    throw new Error(`${missingRuntime} (tools)`);
  });
});
const noCompaction = fromPromise<CompactionActorOutput, CompactionActorInput>(async () => {
  throw new Error(missingRuntime);
});
const allowAll = fromPromise<ApprovalVerdict[], ApprovalActorInput>(async ({ input }) =>
  input.calls.map(() => ({ decision: 'allow' as const, reason: 'policy' as const })),
);

/** The id of the tool runner a tool step spawns. */
export const TOOL_RUNNER_ID = 'tools';

/** Wires a pure update into an action: assign the context, emit its events. */
function applyUpdate(update: Update, enqueue: { assign: (context: AgentContext) => void; emit: (event: AgentEvent) => void }) {
  enqueue.assign(update.context);
  for (const event of update.events) enqueue.emit(event);
}

/**
 * The machine's implementations: guards (pure functions of the context, in
 * `guards.ts`), actions (pure updates, in `*-updates.ts`, wired to assign and
 * emit), delays and placeholder actors. The state tree is in `agent-machine.ts`.
 */
export const agentSetup = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentMachineEvent,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- XState's documented way to declare the input type
    input: {} as AgentMachineInput,
    emitted: {} as AgentEvent,
  },
  actors: {
    prepare: createPrepareActor(undefined),
    llm: unprovidedLlm,
    tools: unprovidedTools,
    approval: allowAll,
    compaction: noCompaction,
    stopCondition: createStopConditionActor([]),
    runDeadline: deadlineActor({ type: 'run.deadline' }),
    retryDeadline: deadlineActor({ type: 'retry.due' }),
    approvalDeadline: deadlineActor({ type: 'approval.expired' }),
  },
  // Each guard is the pure function of the same name in guards.ts.
  guards: {
    isStopRequested: ({ context }) => guards.isStopRequested(context),
    isStopRepeated: ({ context }) => guards.isStopRepeated(context),
    canRetry: ({ context }) => guards.canRetry(context),
    isContextOverflow: ({ context }) => guards.isContextOverflow(context),
    hasStepFailed: ({ context }) => guards.hasStepFailed(context),
    isCompletedWithQueuedMessages: ({ context }) => guards.isCompletedWithQueuedMessages(context),
    isCompletedFinish: ({ context }) => guards.isCompletedFinish(context),
    isLengthFinish: ({ context }) => guards.isLengthFinish(context),
    isContentFilterFinish: ({ context }) => guards.isContentFilterFinish(context),
    isFailingFinish: ({ context }) => guards.isFailingFinish(context),
    wantsTools: ({ context }) => guards.wantsTools(context),
    isDoomLoopToStop: ({ context }) => guards.isDoomLoopToStop(context),
    isMaxStepsReached: ({ context }) => guards.isMaxStepsReached(context),
    needsApproval: ({ context }) => guards.needsApproval(context),
    areApprovalsSettled: ({ context }) => guards.areApprovalsSettled(context),
    isSteeringQueued: ({ context }) => guards.isSteeringQueued(context),
    isDoomLoopDenied: ({ context }) => guards.isDoomLoopDenied(context),
    isDeniedStop: ({ context }) => guards.isDeniedStop(context),
    areAllToolsAnswered: ({ context }) => guards.areAllToolsAnswered(context),
    isSequential: ({ context }) => guards.isSequential(context),
    shouldCompact: ({ context }) => guards.shouldCompact(context),
    isCompactionExhausted: ({ context }) => guards.isCompactionExhausted(context),
    canCompactAfterLength: ({ context }) => guards.canCompactAfterLength(context),
    canCompactAfterOverflow: ({ context }) => guards.canCompactAfterOverflow(context),
    isOverflowCompaction: ({ context }) => guards.isOverflowCompaction(context),
    hasStopConditions: ({ context }) => guards.hasStopConditions(context),
    isStopConditionMet: (_, params: { output: unknown }) => guards.isStopConditionMet(params.output),
  },
  actions: {
    beginRun: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.prompt');
      applyUpdate(updates.beginRun(context, event.messages, generateId(), Date.now()), enqueue);
    }),
    beginStep: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginStep(context), enqueue)),
    recordFinishedStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'llm.finish');
      applyUpdate(updates.recordFinishedStep(context, event), enqueue);
    }),
    recordFailedStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'llm.error');
      applyUpdate(updates.recordFailedStep(context, event), enqueue);
    }),
    recordAbortedStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'llm.aborted');
      applyUpdate(updates.recordAbortedStep(context, event), enqueue);
    }),
    requestAbort: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.abort');
      if (!context.run) return;
      applyUpdate(updates.requestStop(context, 'aborted', event.reason ?? 'aborted by the caller'), enqueue);
    }),
    requestTimeout: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      applyUpdate(updates.requestStop(context, 'timeout', 'the run reached timeout.totalMs'), enqueue);
    }),
    requestFailureStop: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'session.writeFailed');
      if (!context.run) return;
      applyUpdate(updates.requestStop(context, 'failed', event.message, { kind: 'session-write', message: event.message }), enqueue);
    }),
    acceptPrompt: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'prompt.prepared');
      applyUpdate(updates.acceptPrompt(context, event.messages), enqueue);
    }),
    /** A run stopped while its prompt was being prepared still keeps the prompt as given: nothing the caller said is lost. */
    acceptGivenPrompt: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      applyUpdate(updates.acceptPrompt(context, context.run.prompt ?? []), enqueue);
    }),
    raiseStop: raise({ type: 'run.stop' }),
    scheduleRetry: enqueueActions(({ context, enqueue }) => applyUpdate(updates.scheduleRetry(context, Date.now(), Math.random), enqueue)),
    beginAttempt: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginAttempt(context), enqueue)),
    abortLlm: sendTo('llm', { type: 'llm.abort' }),
    enqueueSteering: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.steer');
      applyUpdate(queues.enqueueSteering(context, event.message), enqueue);
    }),
    enqueueFollowUp: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.followUp');
      applyUpdate(queues.enqueueFollowUp(context, event.message), enqueue);
    }),
    deliverQueued: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      const ended = updates.endStep(context);
      const delivered = queues.deliverQueued(ended.context, context.run.id);
      applyUpdate({ context: delivered.context, events: [...ended.events, ...delivered.events] }, enqueue);
    }),
    recordApprovalVerdicts: enqueueActions(({ context, enqueue }, params: { verdicts: ApprovalVerdict[] }) => {
      const recorded = approvals.recordApprovalVerdicts(context, params.verdicts, Date.now());
      // A step that waits for a person ends there, as the AI SDK's does: its results come with the answers.
      if (approvals.pendingApprovalIds(recorded.context).length === 0) {
        applyUpdate(recorded, enqueue);
        return;
      }
      const ended = updates.endStep(recorded.context);
      applyUpdate({ context: ended.context, events: [...recorded.events, ...ended.events] }, enqueue);
    }),
    approveCall: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.approve');
      applyUpdate(approvals.answerApproval(context, event.toolCallId, 'approved'), enqueue);
    }),
    denyCall: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.deny');
      applyUpdate(approvals.answerApproval(context, event.toolCallId, 'denied', event.reason), enqueue);
    }),
    denyUnansweredApprovals: enqueueActions(({ context, enqueue }) =>
      applyUpdate(approvals.denyUnanswered(context, `no answer within ${context.config.approvalTimeoutMs} ms (approvalTimeoutMs)`), enqueue),
    ),
    beginToolExec: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginToolExec(context), enqueue)),
    startTools: enqueueActions(({ context, enqueue }) => {
      const run = context.run;
      if (!run) return;
      const next = updates.startNextTools(context);
      if (next.start.length === 0) return applyUpdate(next, enqueue);
      // The run's runner crashed earlier: its calls are answered with that error, as the crash answered the ones it had.
      if (run.toolRunnerCrash !== undefined) return applyUpdate(updates.answerWithToolRunnerCrash(next.context, next.start, run.toolRunnerCrash, next.events), enqueue);
      const { timeouts, truncation } = context.config;
      const jobs = next.start.map((index) => {
        const call = run.calls[index]!;
        const timeoutMs = timeouts.tools?.[call.toolName] ?? timeouts.toolMs;
        return {
          index,
          call,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(truncation ? { truncation: limitsFor(truncation, call.toolName) } : {}),
        };
      });
      const scope: ToolStepScope = {
        runId: run.id,
        step: run.steps,
        messages: context.messages,
        ...(context.config.timeouts.hookMs !== undefined ? { hookMs: context.config.timeouts.hookMs } : {}),
      };
      enqueue.sendTo(TOOL_RUNNER_ID, { type: 'tools.start', scope, jobs } satisfies ToolRunnerCommand);
      applyUpdate(next, enqueue);
    }),
    recordToolAnswer: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'tool.answer');
      applyUpdate(updates.recordToolAnswer(context, event.step, event.output), enqueue);
    }),
    /**
     * The run's tool runner crashed (a custom one: the built-in never does): every call of the step
     * still open gets an error answer, and so does every call of the run's later steps.
     */
    recordToolRunnerCrash: enqueueActions(({ context, enqueue }, params: { error: unknown }) => {
      if (!context.run) return;
      applyUpdate(updates.recordToolRunnerCrash(context, errorMessage(params.error)), enqueue);
    }),
    beginCompaction: enqueueActions(({ context, enqueue }, params: { reason: CompactionReason }) =>
      applyUpdate(compaction.beginCompaction(context, params.reason), enqueue),
    ),
    applyCompaction: enqueueActions(({ context, enqueue }, params: { output: CompactionActorOutput }) =>
      applyUpdate(compaction.applyCompaction(context, params.output), enqueue),
    ),
    endToolStep: enqueueActions(({ context, enqueue }) => applyUpdate(updates.endToolStep(context), enqueue)),
    /** Ends a run that was asked to stop, with the outcome (and error) of the first request. */
    endStoppedRun: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      const stop = context.run.stop;
      applyUpdate(updates.endRun(context, stop?.outcome ?? 'aborted', stop?.error, Date.now()), enqueue);
    }),
    /** Ends the run with `outcome`; the error defaults to the step's own, when it failed. */
    endRun: enqueueActions(({ context, enqueue }, params: { outcome: Outcome; error?: RunError }) => {
      if (!context.run) return;
      const error = params.error ?? guards.stepError(context);
      applyUpdate(updates.endRun(context, params.outcome, error, Date.now()), enqueue);
    }),
  },
});

/** What the prepare actor gets: the run's prompt as given. */
export function prepareInput(context: AgentContext): PrepareActorInput {
  return { prompt: context.run?.prompt ?? [] };
}

/** What the approval actor gets for the current step. */
export function approvalInput(context: AgentContext): ApprovalActorInput {
  const run = context.run!;
  const fingerprint =
    context.config.doomLoopAction === 'ask' && context.config.doomLoopThreshold > 0
      ? doomLoopFingerprint(run.doomStreaks, context.config.doomLoopThreshold)
      : undefined;
  return {
    runId: run.id,
    step: run.steps,
    calls: approvals.stepCalls(run),
    messages: context.messages,
    ...(fingerprint !== undefined ? { doomLoopFingerprint: fingerprint } : {}),
  };
}

/** Each agent's call limits, made once from its timeouts (which never change) rather than at every step. */
const limitsOfTimeouts = new WeakMap<AgentContext['config']['timeouts'], StepLimits>();

/** The time limits of one LLM call, for the llm actor and the summariser (read only: one object serves every call). */
function callLimits({ timeouts }: AgentContext['config']): StepLimits {
  let limits = limitsOfTimeouts.get(timeouts);
  if (limits === undefined) {
    limits = {
      ...(timeouts.firstChunkMs !== undefined ? { firstChunkMs: timeouts.firstChunkMs } : {}),
      ...(timeouts.chunkMs !== undefined ? { chunkMs: timeouts.chunkMs } : {}),
      ...(timeouts.stepMs !== undefined ? { stepMs: timeouts.stepMs } : {}),
    };
    limitsOfTimeouts.set(timeouts, limits);
  }
  return limits;
}

/** What the llm actor gets for the current attempt. */
export function llmInput(context: AgentContext): LlmActorInput {
  const run = context.run!;
  const { timeouts, instructions } = context.config;
  return {
    runId: run.id,
    step: run.steps,
    attempt: run.attempt,
    messages: applyPruning(context.messages, context.prunedToolCallIds),
    ...(run.rejectedOutput ? { rejectedOutput: run.rejectedOutput } : {}),
    instructions,
    limits: callLimits(context.config),
    ...(timeouts.hookMs !== undefined ? { hookMs: timeouts.hookMs } : {}),
  };
}

/** What the compaction actor gets. */
export function compactionInput(context: AgentContext): CompactionActorInput {
  const config = context.config.compaction;
  if (config === false) throw new Error('loopchart: compaction entered while disabled (machine invariant broken)');
  return {
    reason: context.run?.compaction?.reason ?? 'threshold',
    tokensBefore: context.run?.compaction?.tokensBefore ?? compaction.contextTokensOf(context),
    messages: context.messages.toArray() as ModelMessage[],
    prunedToolCallIds: context.prunedToolCallIds,
    config,
    limits: callLimits(context.config),
  };
}
