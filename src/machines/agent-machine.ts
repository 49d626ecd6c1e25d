import { generateId, type ModelMessage } from 'ai';
import { enqueueActions, fromCallback, fromPromise, raise, sendTo, setup } from 'xstate';
import type { LlmActorCommand, LlmActorEvent, LlmActorInput } from '../actors/llm-actor.js';
import type { ToolActorInput, ToolActorOutput } from '../actors/tool-actor.js';
import { errorMessage } from '../errors/error-message.js';
import type { AgentEvent } from '../events.js';
import type { Outcome, RunError } from '../result.js';
import { defaultConfig, type AgentContext, type AgentMachineInput } from './context.js';
import * as guards from './guards.js';
import { errorAnswer } from './history.js';
import { limitsFor } from '../resilience/truncate-output.js';
import * as updates from './run-updates.js';

/** Events the agent machine accepts. */
export type AgentMachineEvent =
  | { type: 'agent.prompt'; messages: ModelMessage[] }
  | { type: 'agent.abort'; reason?: string }
  /** Internal: raised when an abort or the run's deadline asks the current state to stop. */
  | { type: 'run.stop' }
  | LlmActorEvent
  | { type: `xstate.done.actor.${string}`; output: ToolActorOutput }
  | { type: `xstate.error.actor.${string}`; error: unknown };

const missingRuntime =
  'agentMachine has no model: provide one with agentMachine.provide(agentImplementations({ model, tools })) or use createAgent().';

/** Placeholder actors: `agentMachine` must be provided with real ones (see `agentImplementations`). */
const unprovidedLlm = fromCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(({ sendBack }) => {
  sendBack({ type: 'llm.error', error: { kind: 'invalid-request', message: missingRuntime } });
});
const unprovidedTool = fromPromise<ToolActorOutput, ToolActorInput>(async ({ input }) => {
  throw new Error(`${missingRuntime} (tool "${input.call.toolName}")`);
});

function toolActorId(step: number, index: number): string {
  return `tool.${step}.${index}`;
}

/** The largest delay a timer takes; used for timers whose guard keeps them from firing. */
const NEVER_MS = 2 ** 31 - 1;

/** Builds the wiring action for a pure update: assign the context, emit its events. */
function applyUpdate(update: updates.Update, enqueue: { assign: (context: AgentContext) => void; emit: (event: AgentEvent) => void }) {
  enqueue.assign(update.context);
  for (const event of update.events) enqueue.emit(event);
}

/**
 * The agent loop as a statechart. See docs/architecture.md for the diagram.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { agentMachine, agentImplementations } from 'loopchart';
 *
 * const actor = createActor(agentMachine.provide(agentImplementations({ model, tools })), {
 *   input: { config: { maxSteps: 10 } },
 * });
 * actor.on('run-end', ({ result }) => console.log(result.outcome));
 * actor.start();
 * actor.send({ type: 'agent.prompt', messages: [{ role: 'user', content: 'Hello' }] });
 * ```
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentMachineEvent,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- XState's documented way to declare the input type
    input: {} as AgentMachineInput,
    emitted: {} as AgentEvent,
  },
  actors: {
    llm: unprovidedLlm,
    tool: unprovidedTool,
  },
  delays: {
    retryDelay: ({ context }) => Math.max(0, (context.run?.retry?.resumeAt ?? 0) - Date.now()),
    runDeadline: ({ context }) => (context.run?.deadline === undefined ? NEVER_MS : Math.max(0, context.run.deadline - Date.now())),
  },
  guards: {
    isAbortRequested: ({ context }) => guards.isAbortRequested(context),
    isOverTimeBudget: ({ context }) => guards.isOverTimeBudget(context, Date.now()),
    isStopRepeated: ({ context }) => guards.isStopRepeated(context),
    hasDeadline: ({ context }) => context.run?.deadline !== undefined,
    canRetry: ({ context }) => guards.canRetry(context),
    isContextOverflow: ({ context }) => guards.isContextOverflow(context),
    hasStepFailed: ({ context }) => guards.hasStepFailed(context),
    isCompletedFinish: ({ context }) => guards.isFinishedWith(context, 'completed'),
    isLengthFinish: ({ context }) => guards.isFinishedWith(context, 'context-limit'),
    isContentFilterFinish: ({ context }) => guards.isFinishedWith(context, 'content-filter'),
    isFailingFinish: ({ context }) => guards.isFinishedWith(context, 'failed'),
    wantsTools: ({ context }) => guards.wantsTools(context),
    isDoomLoop: ({ context }) => guards.isDoomLoop(context),
    isMaxStepsReached: ({ context }) => guards.isMaxStepsReached(context),
    areAllToolsAnswered: ({ context }) => guards.areAllToolsAnswered(context),
    isSequential: ({ context }) => context.config.toolExecution === 'sequential',
    /** Filled by the approval policy (human-in-the-loop issue). */
    needsApproval: () => false,
    /** Filled by the compaction policy (context issue). */
    shouldCompact: () => false,
  },
  actions: {
    beginRun: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'agent.prompt') return;
      applyUpdate(updates.beginRun(context, event.messages, generateId(), Date.now()), enqueue);
    }),
    beginStep: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginStep(context), enqueue)),
    recordFinishedStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'llm.finish') applyUpdate(updates.recordFinishedStep(context, event), enqueue);
    }),
    recordFailedStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'llm.error') applyUpdate(updates.recordFailedStep(context, event.error), enqueue);
    }),
    recordAbortedStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'llm.aborted') applyUpdate(updates.recordAbortedStep(context, event), enqueue);
    }),
    requestAbort: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'agent.abort' || !context.run) return;
      applyUpdate(updates.requestStop(context, 'aborted', event.reason ?? 'aborted by the caller'), enqueue);
    }),
    requestTimeout: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      applyUpdate(updates.requestStop(context, 'timeout', 'the run reached timeouts.totalMs'), enqueue);
    }),
    raiseStop: raise({ type: 'run.stop' }),
    scheduleRetry: enqueueActions(({ context, enqueue }) => applyUpdate(updates.scheduleRetry(context, Date.now(), Math.random), enqueue)),
    beginAttempt: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginAttempt(context), enqueue)),
    abortLlm: sendTo('llm', { type: 'llm.abort' }),
    beginToolExec: enqueueActions(({ context, enqueue }) => applyUpdate(updates.beginToolExec(context), enqueue)),
    startTools: enqueueActions(({ context, enqueue }) => {
      const run = context.run;
      if (!run) return;
      const sequential = context.config.toolExecution === 'sequential';
      const last = sequential ? Math.min(run.nextCall + 1, run.calls.length) : run.calls.length;
      for (let index = run.nextCall; index < last; index++) {
        const call = run.calls[index]!;
        const { timeouts, truncation } = context.config;
        const timeoutMs = timeouts.tools?.[call.toolName] ?? timeouts.toolMs;
        enqueue.spawnChild('tool', {
          id: toolActorId(run.steps, index),
          input: {
            runId: run.id,
            step: run.steps,
            index,
            call,
            messages: context.messages,
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
            ...(timeouts.hookMs !== undefined ? { hookMs: timeouts.hookMs } : {}),
            ...(truncation ? { truncation: limitsFor(truncation, call.toolName) } : {}),
          },
        });
      }
      enqueue.assign({ run: { ...run, nextCall: last } });
    }),
    recordToolAnswer: enqueueActions(({ context, event, enqueue }) => {
      if (!event.type.startsWith('xstate.done.actor.tool.')) return;
      applyUpdate(updates.recordToolAnswer(context, (event as { output: ToolActorOutput }).output), enqueue);
    }),
    /** A tool actor that rejected (a custom one: the built-in never does) still answers its call. */
    recordToolCrash: enqueueActions(({ context, event, enqueue }) => {
      const index = Number(event.type.split('.').pop());
      const call = context.run?.calls[index];
      if (!call || !('error' in event)) return;
      const message = `Tool "${call.toolName}" crashed: ${errorMessage(event.error)}`;
      const output = { index, answer: errorAnswer(call, message), output: message, isError: true, durationMs: 0 };
      applyUpdate(updates.recordToolAnswer(context, output), enqueue);
    }),
    stopRunningTools: enqueueActions(({ context, enqueue }) => {
      const run = context.run;
      if (!run) return;
      for (let index = 0; index < run.nextCall; index++) {
        if (run.answers[index] === null) enqueue.stopChild(toolActorId(run.steps, index));
      }
    }),
    endToolStep: enqueueActions(({ context, enqueue }) => applyUpdate(updates.endToolStep(context), enqueue)),
    /** Ends a run that was asked to stop, with the outcome of the first request (`aborted` or `timeout`). */
    endStoppedRun: enqueueActions(({ context, enqueue }) => {
      if (!context.run) return;
      applyUpdate(updates.endRun(context, context.run.stop?.outcome ?? 'aborted', undefined, Date.now()), enqueue);
    }),
    /** Ends the run with `outcome`; the error defaults to the step's own, when it failed. */
    endRun: enqueueActions(({ context, enqueue }, params: { outcome: Outcome; error?: RunError }) => {
      if (!context.run) return;
      const error = params.error ?? guards.stepError(context);
      applyUpdate(updates.endRun(context, params.outcome, error, Date.now()), enqueue);
    }),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    config: { ...defaultConfig, ...input.config },
    messages: input.messages ?? [],
  }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        'agent.prompt': { target: 'running', actions: ['beginRun', 'beginStep'] },
      },
    },
    running: {
      initial: 'llm',
      on: {
        'agent.abort': { actions: ['requestAbort', 'raiseStop'] },
      },
      after: {
        runDeadline: { guard: 'hasDeadline', actions: ['requestTimeout', 'raiseStop'] },
      },
      states: {
        compacting: {
          always: 'llm',
        },
        llm: {
          invoke: {
            id: 'llm',
            src: 'llm',
            input: ({ context }) => {
              const { timeouts, instructions } = context.config;
              return {
                runId: context.run!.id,
                step: context.run!.steps,
                attempt: context.run!.attempt,
                messages: context.messages,
                instructions,
                limits: {
                  ...(timeouts.firstChunkMs !== undefined ? { firstChunkMs: timeouts.firstChunkMs } : {}),
                  ...(timeouts.chunkMs !== undefined ? { chunkMs: timeouts.chunkMs } : {}),
                  ...(timeouts.stepMs !== undefined ? { stepMs: timeouts.stepMs } : {}),
                },
                ...(timeouts.hookMs !== undefined ? { hookMs: timeouts.hookMs } : {}),
              };
            },
          },
          initial: 'calling',
          states: {
            calling: {
              on: { 'llm.firstChunk': 'streaming' },
            },
            streaming: {},
          },
          on: {
            'llm.finish': { target: 'deciding', actions: 'recordFinishedStep' },
            'llm.error': { target: 'deciding', actions: 'recordFailedStep' },
            'llm.aborted': { target: 'deciding', actions: 'recordAbortedStep' },
            'run.stop': [{ guard: 'isStopRepeated', target: '#agent.idle', actions: 'endStoppedRun' }, { actions: 'abortLlm' }],
          },
        },
        deciding: {
          always: [
            { guard: 'isAbortRequested', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'aborted' } } },
            { guard: 'isOverTimeBudget', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'timeout' } } },
            { guard: 'canRetry', target: 'retrying' },
            { guard: 'isContextOverflow', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'context-limit' } } },
            { guard: 'hasStepFailed', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'failed' } } },
            {
              guard: 'isCompletedFinish',
              target: '#agent.idle',
              actions: { type: 'endRun', params: { outcome: 'completed' } },
            },
            {
              guard: 'isLengthFinish',
              target: '#agent.idle',
              actions: { type: 'endRun', params: { outcome: 'context-limit' } },
            },
            {
              guard: 'isContentFilterFinish',
              target: '#agent.idle',
              actions: { type: 'endRun', params: { outcome: 'content-filter' } },
            },
            {
              guard: 'isFailingFinish',
              target: '#agent.idle',
              actions: { type: 'endRun', params: { outcome: 'failed' } },
            },
            { guard: 'isDoomLoop', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'doom-loop' } } },
            { guard: 'isMaxStepsReached', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'max-steps' } } },
            { guard: 'needsApproval', target: 'awaitingApproval' },
            { guard: 'wantsTools', target: 'toolExec' },
            {
              target: '#agent.idle',
              actions: {
                type: 'endRun',
                params: { outcome: 'failed', error: { kind: 'invalid-response', message: 'The step ended in no known way.' } },
              },
            },
          ],
        },
        retrying: {
          entry: 'scheduleRetry',
          after: {
            retryDelay: { target: 'llm', actions: 'beginAttempt' },
          },
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        awaitingApproval: {
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        toolExec: {
          entry: ['beginToolExec', 'startTools'],
          exit: 'stopRunningTools',
          always: [{ guard: 'areAllToolsAnswered', target: 'llm', actions: ['endToolStep', 'beginStep'] }],
          on: {
            'xstate.done.actor.tool.*': [
              { guard: 'isSequential', actions: ['recordToolAnswer', 'startTools'] },
              { actions: 'recordToolAnswer' },
            ],
            'xstate.error.actor.tool.*': [
              { guard: 'isSequential', actions: ['recordToolCrash', 'startTools'] },
              { actions: 'recordToolCrash' },
            ],
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
      },
    },
  },
});

export type AgentMachine = typeof agentMachine;
