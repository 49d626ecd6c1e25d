import { agentSetup, approvalInput, compactionInput, llmInput } from './agent-setup.js';
import { errorMessage } from '../errors/error-message.js';
import { defaultConfig } from './context.js';

export { type AgentMachineEvent } from './agent-setup.js';

/**
 * The agent loop as a statechart. See docs/architecture.md for the diagram;
 * guards and actions live in `agent-setup.ts`.
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
export const agentMachine = agentSetup.createMachine({
  id: 'agent',
  context: ({ input }) => ({
    config: { ...defaultConfig, ...input.config },
    messages: input.messages ?? [],
    queues: { steering: [], followUps: [] },
    prunedToolCallIds: [],
  }),
  initial: 'idle',
  on: {
    'agent.steer': { actions: 'enqueueMessage' },
    'agent.followUp': { actions: 'enqueueMessage' },
  },
  states: {
    idle: {
      on: {
        'agent.prompt': { target: 'running', actions: 'beginRun' },
      },
    },
    running: {
      initial: 'nextStep',
      invoke: { id: 'runDeadline', src: 'runDeadline', input: ({ context }) => ({ at: context.run?.deadline }) },
      on: {
        'agent.abort': { actions: ['requestAbort', 'raiseStop'] },
        'run.deadline': { actions: ['requestTimeout', 'raiseStop'] },
      },
      states: {
        nextStep: {
          always: [
            {
              guard: 'isCompactionExhausted',
              target: '#agent.idle',
              actions: {
                type: 'endRun',
                params: { outcome: 'context-limit', error: { kind: 'context-overflow', message: 'The context is over budget and maxCompactions is used up.' } },
              },
            },
            { guard: 'shouldCompact', target: 'compacting', actions: { type: 'beginCompaction', params: { reason: 'threshold' } } },
            { target: 'llm', actions: 'beginStep' },
          ],
        },
        compacting: {
          invoke: {
            id: 'compaction',
            src: 'compaction',
            input: ({ context }) => compactionInput(context),
            onDone: [
              { guard: 'isOverflowCompaction', target: 'llm', actions: ['applyCompaction', 'beginAttempt'] },
              { target: 'llm', actions: ['applyCompaction', 'beginStep'] },
            ],
            onError: {
              target: '#agent.idle',
              actions: {
                type: 'endRun',
                params: ({ event }) => ({
                  outcome: 'context-limit' as const,
                  error: { kind: 'context-overflow' as const, message: `Compaction failed: ${errorMessage(event.error)}` },
                }),
              },
            },
          },
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        llm: {
          invoke: { id: 'llm', src: 'llm', input: ({ context }) => llmInput(context) },
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
            { guard: 'canCompactAfterOverflow', target: 'compacting', actions: { type: 'beginCompaction', params: { reason: 'overflow' } } },
            { guard: 'isContextOverflow', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'context-limit' } } },
            { guard: 'hasStepFailed', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'failed' } } },
            { guard: 'hasQueuedMessages', target: 'nextStep', actions: 'deliverQueued' },
            { guard: 'isCompletedFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'completed' } } },
            { guard: 'canCompactAfterLength', target: 'compacting', actions: { type: 'beginCompaction', params: { reason: 'length' } } },
            { guard: 'isLengthFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'context-limit' } } },
            { guard: 'isContentFilterFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'content-filter' } } },
            { guard: 'isFailingFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'failed' } } },
            { guard: 'isDoomLoop', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'doom-loop' } } },
            { guard: 'isMaxStepsReached', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'max-steps' } } },
            { guard: 'needsApproval', target: 'approving' },
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
          invoke: { id: 'retryDeadline', src: 'retryDeadline', input: ({ context }) => ({ at: context.run?.retry?.resumeAt }) },
          on: {
            'retry.due': { target: 'llm', actions: 'beginAttempt' },
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        approving: {
          invoke: {
            id: 'approval',
            src: 'approval',
            input: ({ context }) => approvalInput(context),
            onDone: { target: 'awaitingApproval', actions: 'recordApprovalVerdicts' },
          },
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        awaitingApproval: {
          always: [
            { guard: 'isDoomLoopDenied', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'doom-loop' } } },
            { guard: 'isDeniedStop', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'denied' } } },
            { guard: 'areApprovalsSettled', target: 'toolExec' },
            // Steering redirects the run at once: the wait ends, and toolExec skips every call not yet run.
            { guard: 'isSteeringQueued', target: 'toolExec' },
          ],
          invoke: { id: 'approvalDeadline', src: 'approvalDeadline', input: ({ context }) => ({ at: context.run?.approvalDeadline }) },
          on: {
            'approval.expired': { actions: 'denyUnansweredApprovals' },
            'agent.approve': { actions: 'answerApproval' },
            'agent.deny': { actions: 'answerApproval' },
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        toolExec: {
          entry: ['beginToolExec', 'spawnToolRunner', 'startTools'],
          exit: 'stopToolRunner',
          always: [{ guard: 'areAllToolsAnswered', target: 'nextStep', actions: 'endToolStep' }],
          on: {
            'tool.answer': [{ guard: 'isSequential', actions: ['recordToolAnswer', 'startTools'] }, { actions: 'recordToolAnswer' }],
            'xstate.error.actor.tools': { actions: { type: 'recordToolRunnerCrash', params: ({ event }) => ({ error: event.error }) } },
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
      },
    },
  },
});

export type AgentMachine = typeof agentMachine;
