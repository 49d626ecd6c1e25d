/**
 * The XState baseline of the loop benchmark: what XState 5 itself needs for the transitions and
 * children of a loopchart tool loop, with none of loopchart's work. It is the run chart of
 * `src/machines/agent-machine.ts` rebuilt bare, and a run of it goes through what a loopchart run
 * goes through (counted with an inspection observer on the model-free loop):
 *
 * - the same states, so XState walks a tree of the same shape, and the same transitions in the
 *   same order, each guarded transition behind as many guards as loopchart's (`deciding` tries
 *   fourteen before `wantsTools`; `nextStep` two; `toolExec` an `and` of two);
 * - per tool step three macrosteps (`llm.firstChunk`, `llm.finish`, `tool.answer`) and six
 *   microsteps (`calling → streaming`, `llm → deciding`, `deciding → toolExec`, the targetless
 *   `tool.answer`, `toolExec → nextStep`, `nextStep → llm`);
 * - the same actions where loopchart has them: an `assign` of a new context for every update,
 *   six `emit`s a step (heard by one `actor.on('*')` listener, as the agent listens), one `sendTo`
 *   the run's tool runner;
 * - the same children: an invoked llm actor started and stopped per step, whose events arrive
 *   from a promise as a stream's would; one tool runner per run, invoked by `running`, that
 *   answers each `tools.start` from a promise; the run's `prepare` and deadline actors;
 * - the session chart around it, bare, as an agent without a store walks it (`sessionBaseline`).
 *
 * What it leaves out is loopchart's own: the history and its messages, the trace (and with it the
 * inspection observer), the event outbox, the step's model work and the tool's validation. With
 * `inspect`, an inspection observer that does nothing is attached, as loopchart's trace attaches
 * one: XState then builds an inspection event for every action, microstep and snapshot.
 */
import { and, assign, createActor, emit, enqueueActions, fromCallback, not, setup, type Actor, type InspectionEvent } from 'xstate';
import { check } from './support.js';

interface BaselineContext {
  maxSteps: number;
  toolSteps: number;
  steps: number;
  toolCalls: number;
  answered: number;
  finishReason: 'tool-calls' | 'stop' | undefined;
  stopRequested: boolean;
}

type BaselineEvent =
  | { type: 'agent.prompt'; text: string }
  | { type: 'agent.abort' }
  | { type: 'run.stop' }
  | { type: 'prompt.prepared'; text: string }
  | { type: 'llm.firstChunk' }
  | { type: 'llm.finish'; finishReason: 'tool-calls' | 'stop'; toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }> }
  | { type: 'tools.start'; step: number; jobs: Array<{ index: number; toolCallId: string }> }
  | { type: 'tool.answer'; step: number; index: number; output: unknown };

type Emitted = { type: string; step?: number };

/** Answers from a resolved promise, as loopchart's actors answer from the stream or the tool's promise. */
const later = (send: () => void) => void Promise.resolve().then(send);

const noGuard = () => false;

const baselineSetup = setup({
  types: {
    context: {} as BaselineContext,
    events: {} as BaselineEvent,
    input: {} as { toolSteps: number },
    emitted: {} as Emitted,
  },
  actors: {
    deadline: fromCallback(() => undefined),
    prepare: fromCallback<BaselineEvent, { text: string }>(({ input, sendBack }) => later(() => sendBack({ type: 'prompt.prepared', text: input.text }))),
    llm: fromCallback<BaselineEvent, { step: number; toolSteps: number }>(({ input, sendBack }) => {
      const toolStep = input.step <= input.toolSteps;
      void Promise.resolve()
        .then(() => sendBack({ type: 'llm.firstChunk' }))
        .then(() =>
          sendBack({
            type: 'llm.finish',
            finishReason: toolStep ? 'tool-calls' : 'stop',
            toolCalls: toolStep ? [{ toolCallId: `call-${input.step}-0`, toolName: 'echo', input: { n: input.step * 100 } }] : [],
          }),
        );
      return () => undefined;
    }),
    tools: fromCallback<BaselineEvent>(({ receive, sendBack }) => {
      receive((event) => {
        if (event.type !== 'tools.start') return;
        for (const job of event.jobs) later(() => sendBack({ type: 'tool.answer', step: event.step, index: job.index, output: job.index }));
      });
      return () => undefined;
    }),
  },
  guards: {
    isStopRequested: ({ context }) => context.stopRequested,
    isStopRepeated: noGuard,
    canRetry: noGuard,
    canCompactAfterOverflow: noGuard,
    isContextOverflow: noGuard,
    hasStepFailed: noGuard,
    isCompletedWithQueuedMessages: noGuard,
    isCompletedFinish: ({ context }) => context.finishReason === 'stop',
    canCompactAfterLength: noGuard,
    isLengthFinish: noGuard,
    isContentFilterFinish: noGuard,
    isFailingFinish: noGuard,
    isDoomLoopToStop: noGuard,
    isMaxStepsReached: ({ context }) => context.steps >= context.maxSteps,
    needsApproval: noGuard,
    wantsTools: ({ context }) => context.finishReason === 'tool-calls',
    isCompactionExhausted: noGuard,
    shouldCompact: noGuard,
    areAllToolsAnswered: ({ context }) => context.answered === context.toolCalls,
    hasStopConditions: noGuard,
    isSequential: noGuard,
    areApprovalsSettled: noGuard,
  },
  actions: {
    beginRun: assign({ steps: 0, stopRequested: false }),
    emitRunStart: emit({ type: 'run-start' }),
    acceptPrompt: assign({ finishReason: undefined }),
    emitMessage: emit({ type: 'message' }),
    beginStep: assign({ steps: ({ context }) => context.steps + 1, toolCalls: 0, answered: 0, finishReason: undefined }),
    emitStepStart: emit(({ context }) => ({ type: 'start-step', step: context.steps })),
    recordFinishedStep: assign(({ event }) => {
      if (event.type !== 'llm.finish') return {};
      return { finishReason: event.finishReason, toolCalls: event.toolCalls.length };
    }),
    emitToolCall: emit({ type: 'tool-call' }),
    beginToolExec: assign({ answered: 0 }),
    // As loopchart's startTools: the context records the started calls, one sendTo hands them to the runner.
    startTools: enqueueActions(({ context, enqueue }) => {
      enqueue.sendTo('tools', { type: 'tools.start', step: context.steps, jobs: Array.from({ length: context.toolCalls }, (_, index) => ({ index, toolCallId: `call-${context.steps}-${index}` })) });
      enqueue.assign({ answered: 0 });
    }),
    recordToolAnswer: assign({ answered: ({ context }) => context.answered + 1 }),
    emitToolResult: emit({ type: 'tool-result' }),
    endToolStep: assign({ finishReason: undefined }),
    emitStepEnd: emit(({ context }) => ({ type: 'finish-step', step: context.steps })),
    endRun: assign({ finishReason: undefined }),
    emitRunEnd: emit({ type: 'run-end' }),
    requestAbort: assign({ stopRequested: true }),
  },
});


const stop = { 'run.stop': { target: '#baseline.idle', actions: ['endRun', 'emitRunEnd'] } } as const;
const endRun = { target: '#baseline.idle', actions: ['endRun', 'emitRunEnd'] } as const;

/** loopchart's run chart, state for state, transition for transition, with nothing behind its guards and actions. */
const baselineMachine = baselineSetup.createMachine({
  id: 'baseline',
  context: ({ input }) => ({ maxSteps: input.toolSteps + 1, toolSteps: input.toolSteps, steps: 0, toolCalls: 0, answered: 0, finishReason: undefined, stopRequested: false }),
  initial: 'idle',
  states: {
    idle: { on: { 'agent.prompt': { target: 'running', actions: ['beginRun', 'emitRunStart'] } } },
    running: {
      initial: 'preparing',
      invoke: [
        { id: 'runDeadline', src: 'deadline' },
        { id: 'tools', src: 'tools' },
      ],
      on: { 'agent.abort': { actions: 'requestAbort' } },
      states: {
        preparing: {
          invoke: { id: 'prepare', src: 'prepare', input: () => ({ text: 'go' }) },
          on: { 'prompt.prepared': { target: 'nextStep', actions: ['acceptPrompt', 'emitMessage'] }, ...stop },
        },
        nextStep: {
          tags: ['step-boundary'],
          always: [
            { guard: 'isCompactionExhausted', ...endRun },
            { guard: 'shouldCompact', target: 'compacting' },
            { target: 'llm', actions: ['beginStep', 'emitStepStart'] },
          ],
        },
        compacting: { on: stop },
        llm: {
          tags: ['model-call'],
          invoke: { id: 'llm', src: 'llm', input: ({ context }) => ({ step: context.steps, toolSteps: context.toolSteps }) },
          initial: 'calling',
          states: {
            calling: { tags: ['checkpoint'], on: { 'llm.firstChunk': 'streaming' } },
            streaming: {},
          },
          on: {
            'llm.finish': { target: 'deciding', actions: ['recordFinishedStep', 'emitMessage', 'emitToolCall'] },
            'run.stop': [{ guard: 'isStopRepeated', ...endRun }, { actions: 'requestAbort' }],
          },
        },
        deciding: {
          always: [
            { guard: 'isStopRequested', ...endRun },
            { guard: 'canRetry', target: 'retrying' },
            { guard: 'canCompactAfterOverflow', target: 'compacting' },
            { guard: 'isContextOverflow', ...endRun },
            { guard: 'hasStepFailed', ...endRun },
            { guard: 'isCompletedWithQueuedMessages', target: 'nextStep' },
            { guard: 'isCompletedFinish', ...endRun },
            { guard: 'canCompactAfterLength', target: 'compacting' },
            { guard: 'isLengthFinish', ...endRun },
            { guard: 'isContentFilterFinish', ...endRun },
            { guard: 'isFailingFinish', ...endRun },
            { guard: 'isDoomLoopToStop', ...endRun },
            { guard: 'isMaxStepsReached', ...endRun },
            { guard: 'needsApproval', target: 'approving' },
            { guard: 'wantsTools', target: 'toolExec' },
            endRun,
          ],
        },
        retrying: { tags: ['checkpoint'], on: stop },
        approving: { on: stop },
        awaitingApproval: {
          tags: ['checkpoint'],
          always: [{ guard: 'areApprovalsSettled', target: 'toolExec' }],
          on: stop,
        },
        toolExec: {
          entry: ['beginToolExec', 'startTools'],
          always: [
            { guard: and(['areAllToolsAnswered', 'hasStopConditions']), target: 'checkingStop', actions: ['endToolStep', 'emitMessage', 'emitStepEnd'] },
            { guard: 'areAllToolsAnswered', target: 'nextStep', actions: ['endToolStep', 'emitMessage', 'emitStepEnd'] },
          ],
          on: {
            'tool.answer': [{ guard: 'isSequential', actions: ['recordToolAnswer', 'emitToolResult', 'startTools'] }, { actions: ['recordToolAnswer', 'emitToolResult'] }],
            ...stop,
          },
        },
        checkingStop: { on: stop },
      },
    },
  },
});

type SessionBaselineEvent = { type: 'session.prompt'; text: string } | { type: 'run.ended' };

/**
 * loopchart's session chart (`src/session/session-machine.ts`) as an agent without a store or a
 * lease walks it, bare: starting, holding (a lease renewer that does nothing), opening, live (the
 * run chart and a session writer invoked, the deferred inputs applied), its `idle` and `running`.
 * Per run it adds three actors and five microsteps (the prompt in, the run's end out), none per step.
 */
const sessionBaseline = setup({
  types: {
    context: {} as { toolSteps: number; deferred: unknown[]; runInputId: string | undefined; opened: boolean },
    input: {} as { toolSteps: number },
    events: {} as SessionBaselineEvent,
    emitted: {} as Emitted,
  },
  actors: { run: baselineMachine, leaseRenewer: fromCallback(() => undefined), sessionWriter: fromCallback(() => undefined) },
  guards: { hasLease: noGuard, hasStore: noGuard, wasWaiting: noGuard, wasRunning: noGuard, isAlreadyApplied: noGuard, isLive: noGuard },
  actions: {
    startFresh: assign({ opened: true }),
    applyDeferred: enqueueActions(({ enqueue }) => enqueue.assign({ deferred: [] })),
    noteRequest: () => undefined,
    startRun: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'session.prompt') return;
      enqueue.sendTo('agent', { type: 'agent.prompt', text: event.text });
      enqueue.assign({ runInputId: 'prompt' });
    }),
    applied: emit({ type: 'session.inputApplied' }),
    settleRun: enqueueActions(({ enqueue }) => {
      enqueue.emit({ type: 'session.runSettled' });
      enqueue.assign({ runInputId: undefined });
    }),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ toolSteps: input.toolSteps, deferred: [], runInputId: undefined, opened: false }),
  initial: 'starting',
  states: {
    starting: { always: [{ guard: 'hasLease', target: 'holding' }, { target: 'holding' }] },
    holding: {
      invoke: { id: 'leaseRenewer', src: 'leaseRenewer' },
      initial: 'opening',
      states: {
        opening: { always: [{ guard: not('hasStore'), target: 'live', actions: 'startFresh' }, { target: 'live' }] },
        live: {
          entry: 'applyDeferred',
          invoke: [
            { id: 'agent', src: 'run', input: ({ context }) => ({ toolSteps: context.toolSteps }) },
            { id: 'sessionWriter', src: 'sessionWriter' },
          ],
          initial: 'resuming',
          on: { 'run.ended': { target: '.idle', actions: 'settleRun' } },
          states: {
            resuming: { always: [{ guard: 'wasWaiting', target: 'idle' }, { guard: 'wasRunning', target: 'idle' }, { target: 'idle' }] },
            idle: { on: { 'session.prompt': [{ guard: 'isAlreadyApplied' }, { guard: 'isLive' }, { target: 'running', actions: ['noteRequest', 'startRun', 'applied'] }] } },
            running: {},
          },
        },
      },
    },
  },
});

/**
 * One run of the baseline: `toolSteps` tool steps and a last step that answers, from a new session
 * actor (as the loop benchmark creates an agent per run) whose run chart is the baseline machine;
 * resolves when the session says the run settled, as `agent.run` does.
 */
export async function xstateToolLoop(toolSteps: number, { inspect }: { inspect?: (event: InspectionEvent) => void } = {}): Promise<void> {
  const session = createActor(sessionBaseline, { input: { toolSteps }, ...(inspect ? { inspect } : {}) });
  let emitted = 0;
  const settled = new Promise<void>((resolve) => session.on('session.runSettled', () => resolve()));
  session.start();
  const run = session.getSnapshot().children.agent as Actor<typeof baselineMachine>;
  // As the session host hears every event of the run chart, and tells the session of the run's end.
  run.on('*', (event) => {
    emitted++;
    if (event.type === 'run-end') session.send({ type: 'run.ended' });
  });
  session.send({ type: 'session.prompt', text: 'go' });
  await settled;
  // Not stopped, as loopchart's agent is not: its actors wait in idle for the next prompt.
  const { steps } = run.getSnapshot().context;
  // run-start and the prompt's message, six per tool step, four in the last step (with run-end): 306 for 50 tool steps, as loopchart.
  const expected = 2 + 6 * toolSteps + 4;
  check(steps === toolSteps + 1 && emitted === expected, `the XState baseline went wrong: ${steps} steps, ${emitted} events emitted (expected ${expected})`);
}
