import { and } from 'xstate';
import { agentSetup, approvalInput, compactionInput, llmInput, prepareInput, TOOL_RUNNER_ID } from './agent-setup.js';
import { stopConditionSteps } from './stop-condition-steps.js';
import { errorMessage } from '../core/error-message.js';
import { withConfigDefaults } from './config-defaults.js';
import { MessageHistory } from '../core/message-history.js';

export { type AgentMachineEvent } from './agent-setup.js';

/**
 * The agent loop as a statechart. See docs/architecture.md for the diagram;
 * guards and actions live in `agent-setup.ts`. `loopchart/machine` publishes it with its actors
 * delegating to the implementations bound to each actor (`sharedAgentMachine`).
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { agentImplementations, agentMachine, bindImplementations } from 'loopchart/machine';
 *
 * const actor = createActor(agentMachine, { input: { config: { maxSteps: 10 } } });
 * bindImplementations(actor, agentImplementations({ model, tools }));
 * actor.on('run-end', ({ result }) => console.log(result.outcome));
 * actor.start();
 * actor.send({ type: 'agent.prompt', messages: [{ role: 'user', content: 'Hello' }] });
 * ```
 */
export const agentMachine = agentSetup.createMachine({
  id: 'agent',
  context: ({ input }) => ({
    config: withConfigDefaults(input.config),
    messages: input.messages ? MessageHistory.from(input.messages) : MessageHistory.empty,
    queues: { steering: [], followUps: [] },
    prunedToolCallIds: [],
  }),
  initial: 'idle',
  on: {
    'agent.steer': { actions: 'enqueueSteering' },
    'agent.followUp': { actions: 'enqueueFollowUp' },
  },
  states: {
    idle: {
      description: 'No run is active. Steering and follow-up messages wait here for the next run.',
      on: {
        'agent.prompt': { target: 'running', actions: 'beginRun' },
      },
    },
    running: {
      description: 'A run is active: every state below handles run.stop (an abort, the deadline, a failed session write).',
      initial: 'preparing',
      invoke: [
        { id: 'runDeadline', src: 'runDeadline', input: ({ context }) => ({ at: context.run?.deadline }) },
        { id: TOOL_RUNNER_ID, src: 'tools', input: ({ context }) => ({ runId: context.run?.id ?? '' }) },
      ],
      on: {
        'xstate.error.actor.tools': { actions: { type: 'recordToolRunnerCrash', params: ({ event }) => ({ error: event.error }) } },
        'agent.abort': { actions: ['requestAbort', 'raiseStop'] },
        'run.deadline': { actions: ['requestTimeout', 'raiseStop'] },
        'session.writeFailed': { actions: ['requestFailureStop', 'raiseStop'] },
      },
      states: {
        preparing: {
          description: 'The prompt is transformed (transformPrompt, e.g. @file mentions) before it enters the history.',
          invoke: { id: 'prepare', src: 'prepare', input: ({ context }) => prepareInput(context) },
          on: {
            'prompt.prepared': { target: 'nextStep', actions: 'acceptPrompt' },
            'prompt.failed': {
              target: '#agent.idle',
              actions: { type: 'endRun', params: ({ event }) => ({ outcome: 'failed' as const, error: event.error }) },
            },
            'run.stop': { target: '#agent.idle', actions: ['acceptGivenPrompt', 'endStoppedRun'] },
          },
        },
        nextStep: {
          description: 'The step boundary: every step starts here, and an over-budget context is compacted first.',
          tags: ['step-boundary'],
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
          description: 'Old tool outputs are pruned, then older messages summarised, until the context fits (fails closed).',
          invoke: {
            id: 'compaction',
            src: 'compaction',
            input: ({ context }) => compactionInput(context),
            onDone: [
              {
                guard: 'isOverflowCompaction',
                target: 'llm',
                actions: [{ type: 'applyCompaction', params: ({ event }) => ({ output: event.output }) }, 'beginAttempt'],
              },
              { target: 'llm', actions: [{ type: 'applyCompaction', params: ({ event }) => ({ output: event.output }) }, 'beginStep'] },
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
          description: 'One LLM call (one attempt of the step) by the llm actor.',
          tags: ['model-call'],
          invoke: { id: 'llm', src: 'llm', input: ({ context }) => llmInput(context) },
          initial: 'calling',
          states: {
            calling: {
              description: 'The request is sent; no chunk has arrived yet. A checkpoint is written on entry.',
              tags: ['checkpoint'],
              on: { 'llm.firstChunk': 'streaming' },
            },
            streaming: {
              description: 'Chunks arrive; deltas go to events$ without a transition.',
            },
          },
          on: {
            'llm.finish': { target: 'deciding', actions: 'recordFinishedStep' },
            'llm.error': { target: 'deciding', actions: 'recordFailedStep' },
            'llm.aborted': { target: 'deciding', actions: 'recordAbortedStep' },
            'run.stop': [{ guard: 'isStopRepeated', target: '#agent.idle', actions: 'endStoppedRun' }, { actions: 'abortLlm' }],
          },
        },
        deciding: {
          description: 'No work: the guards decide, in order, how the step ends (see docs/architecture.md).',
          always: [
            { guard: 'isStopRequested', target: '#agent.idle', actions: 'endStoppedRun' },
            { guard: 'canRetry', target: 'retrying' },
            { guard: 'canCompactAfterOverflow', target: 'compacting', actions: { type: 'beginCompaction', params: { reason: 'overflow' } } },
            { guard: 'isContextOverflow', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'context-limit' } } },
            { guard: 'hasStepFailed', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'failed' } } },
            { guard: 'isCompletedWithQueuedMessages', target: 'nextStep', actions: 'deliverQueued' },
            { guard: 'isCompletedFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'completed' } } },
            { guard: 'canCompactAfterLength', target: 'compacting', actions: { type: 'beginCompaction', params: { reason: 'length' } } },
            { guard: 'isLengthFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'context-limit' } } },
            { guard: 'isContentFilterFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'content-filter' } } },
            { guard: 'isFailingFinish', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'failed' } } },
            { guard: 'isDoomLoopToStop', target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'doom-loop' } } },
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
          description: 'Waits before calling the model again for the same step; the deadline is in the context.',
          tags: ['checkpoint'],
          entry: 'scheduleRetry',
          invoke: { id: 'retryDeadline', src: 'retryDeadline', input: ({ context }) => ({ at: context.run?.retry?.resumeAt }) },
          on: {
            'retry.due': { target: 'llm', actions: 'beginAttempt' },
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        approving: {
          description: 'The approval policy decides every call of the step.',
          invoke: {
            id: 'approval',
            src: 'approval',
            input: ({ context }) => approvalInput(context),
            onDone: {
              target: 'awaitingApproval',
              actions: { type: 'recordApprovalVerdicts', params: ({ event }) => ({ verdicts: event.output }) },
            },
          },
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        awaitingApproval: {
          description: 'Waits for agent.approve / agent.deny on the calls the policy asked about (or approvalTimeoutMs).',
          tags: ['checkpoint'],
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
            'agent.approve': { actions: 'approveCall' },
            'agent.deny': { actions: 'denyCall' },
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        toolExec: {
          description: "The step's tool calls run in the run's tool runner; their answers enter the history in call order.",
          entry: ['beginToolExec', 'startTools'],
          always: [
            { guard: and(['areAllToolsAnswered', 'hasStopConditions']), target: 'checkingStop', actions: 'endToolStep' },
            { guard: 'areAllToolsAnswered', target: 'nextStep', actions: 'endToolStep' },
          ],
          on: {
            'tool.answer': [{ guard: 'isSequential', actions: ['recordToolAnswer', 'startTools'] }, { actions: 'recordToolAnswer' }],
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
        checkingStop: {
          description: "The stopWhen conditions read the run's steps: one that holds ends the run completed, otherwise the next step starts.",
          invoke: {
            id: 'stopCondition',
            src: 'stopCondition',
            input: ({ context }) => ({ steps: stopConditionSteps(context) }),
            onDone: [
              { guard: { type: 'isStopConditionMet', params: ({ event }) => ({ output: event.output }) }, target: '#agent.idle', actions: { type: 'endRun', params: { outcome: 'completed' } } },
              { target: 'nextStep' },
            ],
            onError: {
              target: '#agent.idle',
              actions: {
                type: 'endRun',
                params: ({ event }) => ({
                  outcome: 'failed' as const,
                  error: { kind: 'invalid-request' as const, message: `A stopWhen condition threw: ${errorMessage(event.error)}` },
                }),
              },
            },
          },
          on: {
            'run.stop': { target: '#agent.idle', actions: 'endStoppedRun' },
          },
        },
      },
    },
  },
});

export type AgentMachine = typeof agentMachine;
