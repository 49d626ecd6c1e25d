import { assign, emit, enqueueActions, not, sendTo, setup } from 'xstate';
import type { AgentMachineEvent } from '../machine/agent-setup.js';
import type { AgentMachineInput } from '../machine/context.js';
import type { RunStart, SessionHost } from './session-host.js';
import {
  acquireLeaseActor,
  createSessionActor,
  haltWritesActor,
  leaseRenewerActor,
  loadSessionActor,
  releaseLeaseActor,
  runChart,
  sessionWriterActor,
  settleWritesActor,
} from './session-actors.js';
import {
  RESUMED_RUN,
  type ResumedRun,
  type RunAbandonment,
  type SessionEmitted,
  type SessionEndEvent,
  type SessionEvent,
  type SessionInputEvent,
  type SessionRefusal,
} from './session-events.js';
import { errorMessage } from '../core/error-message.js';

/** The session chart's context: what it knows of the session, as data (its resources are the host's). */
export interface SessionContext {
  host: SessionHost;
  /** Inputs (and a dispose or halt) that arrived before the session was open, in order: applied once it is. */
  deferred: Array<SessionInputEvent | SessionEndEvent>;
  /** What the run chart was doing where it starts (a stored checkpoint, a crash). */
  restored: RunStart['state'];
  /** The prompt whose run is active: its caller hears of the run's end. */
  runInputId: string | undefined;
  /** The run a restored session was in the middle of. */
  resumed: ResumedRun | undefined;
  /** The epoch of the session's lease, once acquired. */
  epoch: number | undefined;
  /** The session is (or was) open: loaded or created, its run chart started. */
  opened: boolean;
  /** Why the session could not be opened. */
  openError: unknown;
}

/** The run chart's id as the session invokes it: the inspector names it so. */
const RUN_ID = 'agent';

type PromptLike = Extract<SessionInputEvent, { type: 'session.prompt' | 'session.steer' | 'session.follow-up' }>;

/** The run chart's prompt for a run a prompt starts (or, on an idle session, a steer's or follow-up's one message). */
function promptOf(event: PromptLike): AgentMachineEvent {
  return { type: 'agent.prompt', messages: event.type === 'session.prompt' ? event.messages : [event.message] };
}

/** The run chart's event for an input applied to a run that works or waits. */
function runEventOf(event: SessionInputEvent): AgentMachineEvent | undefined {
  switch (event.type) {
    case 'session.steer':
      return { type: 'agent.steer', message: event.message };
    case 'session.follow-up':
      return { type: 'agent.followUp', message: event.message };
    case 'session.queue':
      return event.queue === 'steering' ? { type: 'agent.steer', message: event.message } : { type: 'agent.followUp', message: event.message };
    case 'session.abort':
      return { type: 'agent.abort', ...(event.reason !== undefined ? { reason: event.reason } : {}) };
    case 'session.approve':
      return { type: 'agent.approve', toolCallId: event.toolCallId };
    case 'session.deny':
      return { type: 'agent.deny', toolCallId: event.toolCallId, ...(event.reason !== undefined ? { reason: event.reason } : {}) };
    default:
      return undefined;
  }
}

function waitingFor(host: SessionHost): string {
  return host.pendingApprovals.join(', ');
}

const inputTypes = [
  'session.prompt',
  'session.approve',
  'session.deny',
  'session.steer',
  'session.follow-up',
  'session.abort',
  'session.resume',
  'session.queue',
] as const satisfies ReadonlyArray<SessionInputEvent['type']>;

export const sessionSetup = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as { host: SessionHost },
    emitted: {} as SessionEmitted,
  },
  actors: {
    runChart,
    acquireLease: acquireLeaseActor,
    loadSession: loadSessionActor,
    createSession: createSessionActor,
    leaseRenewer: leaseRenewerActor,
    sessionWriter: sessionWriterActor,
    settleWrites: settleWritesActor,
    haltWrites: haltWritesActor,
    releaseLease: releaseLeaseActor,
  },
  guards: {
    hasLease: ({ context }) => context.host.hasLease,
    hasStore: ({ context }) => context.host.hasStore,
    isNewSession: (_, params: { output: RunStart | undefined }) => params.output === undefined,
    wasWaiting: ({ context }) => context.restored === 'waiting',
    wasRunning: ({ context }) => context.restored === 'running' || context.restored === 'ending',
    /** The input's request id was applied to the session before (a checkpoint recorded it, or the next one will). */
    isAlreadyApplied: ({ context, event }) => 'requestId' in event && event.requestId !== undefined && context.host.hasApplied(event.requestId),
    /** A live copy of an input: it only joins an active run. */
    isLive: ({ event }) => 'live' in event && event.live === true,
    /** The tool call waits for an answer now (read from the run chart: it decides when a call waits). */
    isWaitingFor: ({ context, event }) => 'toolCallId' in event && context.host.pendingApprovals.includes(event.toolCallId),
  },
  actions: {
    defer: assign({ deferred: ({ context, event }) => [...context.deferred, event as SessionInputEvent | SessionEndEvent] }),
    /** The inputs that waited for the session to open, in the order they came. */
    applyDeferred: enqueueActions(({ context, enqueue }) => {
      for (const event of context.deferred) enqueue.raise(event);
      enqueue.assign({ deferred: [] });
    }),
    refuseDeferred: enqueueActions(({ context, enqueue }) => {
      for (const event of context.deferred) {
        if (event.type === 'session.dispose' || event.type === 'session.halt') continue;
        enqueue.emit({ type: 'session.inputRefused', input: event, reason: { kind: 'not-open', message: `the session could not be opened: ${errorMessage(context.openError)}`, error: context.openError } });
      }
      enqueue.assign({ deferred: [] });
    }),
    noteRequest: ({ context, event }) => {
      if ('requestId' in event && event.requestId !== undefined) context.host.noteRequest(event.requestId);
    },
    applied: emit(({ event }) => ({ type: 'session.inputApplied' as const, input: event as SessionInputEvent })),
    refuse: emit(({ event }, reason: SessionRefusal) => ({ type: 'session.inputRefused' as const, input: event as SessionInputEvent, reason })),
    /** A run starts; the prompt's `inputId` (a steer or follow-up has none) tells its sender of its end. */
    startRun: enqueueActions(({ event, enqueue }) => {
      const input = event as PromptLike;
      enqueue.sendTo(RUN_ID, promptOf(input));
      enqueue.assign({ runInputId: input.type === 'session.prompt' ? input.inputId : undefined });
    }),
    forward: sendTo(RUN_ID, ({ event }) => runEventOf(event as SessionInputEvent)!),
    /** The run's `run-end` was delivered: whoever sent its prompt (or waits for the resumed run) hears of it. */
    settleRun: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'run.ended') return;
      if (context.runInputId === RESUMED_RUN) enqueue.assign({ resumed: { status: 'ended', result: event.result } });
      if (context.runInputId !== undefined) enqueue.emit({ type: 'session.runSettled', inputId: context.runInputId, result: event.result });
      enqueue.assign({ runInputId: undefined });
    }),
    /** The active run will not end here (disposed while it waits for approval, or halted): whoever waits for it hears why. */
    abandonRun: enqueueActions(({ context, enqueue }, reason: RunAbandonment) => {
      enqueue(() => context.host.runAbandoned(reason));
      if (context.runInputId === undefined) return;
      if (context.runInputId === RESUMED_RUN) enqueue.assign({ resumed: { status: 'abandoned', reason } });
      enqueue.emit({ type: 'session.runAbandoned', inputId: context.runInputId, reason });
      enqueue.assign({ runInputId: undefined });
    }),
    assignEpoch: assign({ epoch: (_, params: { epoch: number }) => params.epoch }),
    /** Where the run chart starts: the stored checkpoint, or the new session's history. */
    startFrom: assign(({ context }, start: RunStart) => {
      context.host.startRunFrom(start);
      const resumed = start.state === 'running' || start.state === 'waiting';
      return {
        restored: start.state,
        opened: true,
        ...(resumed ? { resumed: { status: 'pending' } as const, runInputId: RESUMED_RUN } : {}),
      };
    }),
    /** Without a store the run chart starts from the agent's `messages`. */
    startFresh: assign(({ context }) => {
      context.host.startRunFrom({ messages: context.host.options.messages ?? [], state: 'idle' });
      return { restored: 'idle' as const, opened: true };
    }),
    assignOpenError: assign({ openError: (_, params: { error: unknown }) => params.error }),
    announceRestoredApprovals: ({ context }) => context.host.announceRestoredApprovals(),
    /** The run chart crashed: its run ends `failed` through the machine's own `endRun`, and a fresh one starts from that history. */
    recoverFromCrash: assign(({ context, event }) => {
      const start = context.host.endCrashedRun('error' in event ? event.error : event);
      context.host.startRunFrom(start);
      return { restored: start.state };
    }),
    /** A lost lease: nothing more may be written. */
    closeWriter: ({ context, event }) => {
      if (event.type === 'session.leaseLost') context.host.closeWriter(event.error);
    },
    /**
     * The one place where a refused write or a lost lease ends the run: a `session-warning` says
     * why, and the run chart stops the run (`failed`, error kind `session-write`).
     */
    stopRunForSession: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'session.leaseLost' && event.type !== 'session.writeFailed') return;
      const message = context.host.warnOfWriteFailure(event.error);
      enqueue.sendTo(RUN_ID, { type: 'session.writeFailed', message });
    }),
    warnOfWriteFailure: ({ context, event }) => {
      if (event.type === 'session.leaseLost' || event.type === 'session.writeFailed') context.host.warnOfWriteFailure(event.error);
    },
  },
});

/** Every input refused the same way in a state that cannot take any (closed, or not yet open: deferred). */
function refuseAll(reason: SessionRefusal) {
  return Object.fromEntries(inputTypes.map((type) => [type, { actions: { type: 'refuse' as const, params: reason } }]));
}
/** While the session opens, inputs wait (in order) for it to be open; an answer cannot wait: no call waits for one yet. */
const deferInputs = {
  ...Object.fromEntries([...inputTypes, 'session.dispose', 'session.halt'].map((type) => [type, { actions: 'defer' as const }])),
  'session.approve': { actions: { type: 'refuse' as const, params: ({ context, event }: { context: SessionContext; event: SessionEvent }) => notWaiting(context.host, event) } },
  'session.deny': { actions: { type: 'refuse' as const, params: ({ context, event }: { context: SessionContext; event: SessionEvent }) => notWaiting(context.host, event) } },
};
const duplicate = { guard: 'isAlreadyApplied' as const, actions: { type: 'refuse' as const, params: { kind: 'duplicate' as const, message: 'its request id was applied to the session before' } } };
const liveOnly = { guard: 'isLive' as const, actions: { type: 'refuse' as const, params: { kind: 'idle' as const, message: 'no run is active to join (a live copy only joins one; its durable copy starts the run)' } } };
const closed: SessionRefusal = { kind: 'closed', message: 'the agent was disposed: create another to go on with the session' };
/** A lease lost before the session is open (a store that stopped answering the read): the opening fails with it, and the inputs that waited are refused. */
const leaseLostWhileOpening = {
  target: '#session.failed',
  actions: ['closeWriter', { type: 'assignOpenError' as const, params: ({ event }: { event: SessionEvent }) => ({ error: event.type === 'session.leaseLost' ? event.error : undefined }) }],
} as const;

/**
 * The session as a statechart: opening (the lease, then the stored session loaded — a fork is
 * one — or a new one created), the run chart invoked while the session is live, and disposing.
 * Lease renewal and the session writer are invoked actors whose failures are events: a refused
 * write or a lost lease ends the run in one place (`stopRunForSession`). What a caller sends is
 * `SessionInput` as the chart's own events (`session.prompt`, `session.approve`, …): the chart
 * decides what fits which state, and says so (`session.inputApplied` / `session.inputRefused`).
 * See docs/architecture.md for the diagram.
 *
 * @example
 * ```ts
 * const session = createActor(sessionMachine, { input: { host } }).start();
 * session.on('session.runSettled', ({ result }) => console.log(result.outcome));
 * session.send({ type: 'session.prompt', messages: [{ role: 'user', content: 'hi' }], inputId: 'p1' });
 * ```
 */
export const sessionMachine = sessionSetup.createMachine({
  id: 'session',
  context: ({ input }) => ({
    host: input.host,
    deferred: [],
    restored: 'idle',
    runInputId: undefined,
    resumed: undefined,
    epoch: undefined,
    opened: false,
    openError: undefined,
  }),
  initial: 'starting',
  states: {
    starting: {
      description: 'With a `lease` option the lease is acquired first.',
      always: [{ guard: 'hasLease', target: 'leasing' }, { target: 'holding' }],
    },
    leasing: {
      description: "The session's lease is acquired; inputs wait until the session is open.",
      invoke: {
        id: 'acquireLease',
        src: 'acquireLease',
        input: ({ context }) => ({ host: context.host }),
        onDone: { target: 'holding', actions: { type: 'assignEpoch', params: ({ event }) => ({ epoch: event.output.epoch }) } },
        onError: { target: 'failed', actions: { type: 'assignOpenError', params: ({ event }) => ({ error: event.error }) } },
      },
      on: deferInputs,
    },
    holding: {
      description: 'The lease is held (renewed by the lease renewer) from here until it is released.',
      invoke: { id: 'leaseRenewer', src: 'leaseRenewer', input: ({ context }) => ({ host: context.host }) },
      initial: 'opening',
      on: {
        'session.leaseLost': { actions: ['closeWriter', 'warnOfWriteFailure'] },
        'session.writeFailed': { actions: 'warnOfWriteFailure' },
      },
      states: {
        opening: {
          description: 'Without a store the run chart starts at once, from the `messages` option.',
          always: [{ guard: not('hasStore'), target: 'live', actions: 'startFresh' }, { target: 'loading' }],
        },
        loading: {
          description: 'The stored session (or a fork of one) is read; none by that id: a new one is created.',
          invoke: {
            id: 'loadSession',
            src: 'loadSession',
            input: ({ context }) => ({ host: context.host }),
            onDone: [
              { guard: { type: 'isNewSession', params: ({ event }) => ({ output: event.output }) }, target: 'creating' },
              { target: 'live', actions: { type: 'startFrom', params: ({ event }) => event.output! } },
            ],
            onError: { target: '#session.failed', actions: { type: 'assignOpenError', params: ({ event }) => ({ error: event.error }) } },
          },
          on: { ...deferInputs, 'session.leaseLost': leaseLostWhileOpening },
        },
        creating: {
          description: "A new session's header is written.",
          invoke: {
            id: 'createSession',
            src: 'createSession',
            input: ({ context }) => ({ host: context.host }),
            onDone: { target: 'live', actions: { type: 'startFrom', params: ({ event }) => event.output } },
            onError: { target: '#session.failed', actions: { type: 'assignOpenError', params: ({ event }) => ({ error: event.error }) } },
          },
          on: { ...deferInputs, 'session.leaseLost': leaseLostWhileOpening },
        },
        live: {
          description: 'The run chart is invoked (restored from the last checkpoint) and the session writer writes its step boundaries.',
          entry: 'applyDeferred',
          invoke: [
            {
              id: RUN_ID,
              src: 'runChart',
              // The run chart takes its history and checkpoint from the host, not from its input, which the inspector sees.
              input: ({ context }) => ({ host: context.host }) as unknown as AgentMachineInput,
              // A crash of the run chart (a bug, a custom actor that throws): its run ends `failed`, and a fresh one starts from that history.
              onError: { target: 'live', reenter: true, actions: 'recoverFromCrash' },
            },
            { id: 'sessionWriter', src: 'sessionWriter', input: ({ context }) => ({ host: context.host }) },
          ],
          initial: 'resuming',
          on: {
            'session.approve': [duplicate, { guard: 'isWaitingFor', actions: ['noteRequest', 'forward', 'applied'] }, { actions: { type: 'refuse', params: ({ context, event }) => notWaiting(context.host, event) } }],
            'session.deny': [duplicate, { guard: 'isWaitingFor', actions: ['noteRequest', 'forward', 'applied'] }, { actions: { type: 'refuse', params: ({ context, event }) => notWaiting(context.host, event) } }],
            'session.queue': { actions: ['forward', 'applied'] },
            'session.resume': [duplicate, { actions: 'applied' }],
            'session.halt': '#session.holding.halting',
            'session.leaseLost': { actions: ['closeWriter', 'stopRunForSession'] },
            'session.writeFailed': { actions: 'stopRunForSession' },
            'run.ended': { target: '.idle', actions: 'settleRun' },
          },
          states: {
            resuming: {
              description: 'Where the restored run chart was: waiting for approval (its requests are announced again), working, or idle.',
              always: [
                { guard: 'wasWaiting', target: 'awaitingApproval', actions: 'announceRestoredApprovals' },
                { guard: 'wasRunning', target: 'running' },
                { target: 'idle' },
              ],
            },
            idle: {
              description: 'No run is active. A prompt (or a steer or follow-up sent as a session input) starts one.',
              on: {
                'session.prompt': [duplicate, liveOnly, { target: 'running', actions: ['noteRequest', 'startRun', 'applied'] }],
                'session.steer': [duplicate, liveOnly, { target: 'running', actions: ['noteRequest', 'startRun', 'applied'] }],
                'session.follow-up': [duplicate, liveOnly, { target: 'running', actions: ['noteRequest', 'startRun', 'applied'] }],
                'session.abort': [duplicate, { actions: { type: 'refuse', params: { kind: 'idle', message: 'no run is active to abort (it ended before the abort arrived)' } } }],
                'session.dispose': '#session.holding.closing',
              },
            },
            running: {
              description: 'A run is active until its run-end is delivered (with a store, once its boundary is written).',
              on: {
                'session.prompt': [duplicate, { actions: { type: 'refuse', params: { kind: 'busy', message: 'a run is active: send a steer or a follow-up, or wait for it to end' } } }],
                'session.steer': [duplicate, { actions: ['noteRequest', 'forward', 'applied'] }],
                'session.follow-up': [duplicate, { actions: ['noteRequest', 'forward', 'applied'] }],
                'session.abort': [duplicate, { actions: ['noteRequest', 'forward', 'applied'] }],
                'run.waiting': 'awaitingApproval',
                'session.dispose': { target: 'stopping', actions: sendTo(RUN_ID, { type: 'agent.abort', reason: 'the agent was disposed' }) },
              },
            },
            awaitingApproval: {
              description: "The run's tool calls wait for approve / deny, across restarts: the session can be disposed and opened again here.",
              on: {
                'session.prompt': [duplicate, { actions: { type: 'refuse', params: ({ context }) => waitsForApproval(context.host) } }],
                'session.follow-up': [duplicate, { actions: { type: 'refuse', params: ({ context }) => waitsForApproval(context.host) } }],
                'session.steer': [duplicate, { actions: ['noteRequest', 'forward', 'applied'] }],
                'session.abort': [duplicate, { actions: ['noteRequest', 'forward', 'applied'] }],
                'run.continued': 'running',
                'session.dispose': '#session.holding.closing',
              },
            },
            stopping: {
              description: 'Disposing: the run was told to abort; its end is awaited.',
              on: {
                ...refuseAll(closed),
                'session.abort': { actions: ['forward', 'applied'] },
                'run.ended': { target: '#session.holding.closing', actions: 'settleRun' },
              },
            },
          },
        },
        closing: {
          description: 'Disposing: every boundary handed to the writer lands; a run that waits for approval stays in the session.',
          entry: { type: 'abandonRun', params: { kind: 'disposed' } },
          invoke: { id: 'settleWrites', src: 'settleWrites', input: ({ context }) => ({ host: context.host }), onDone: '#session.releasing', onError: '#session.releasing' },
          on: { ...refuseAll(closed), 'session.halt': 'halting' },
        },
        halting: {
          description: 'Stopped as a crash would stop it: nothing more is written, the run stays where its last checkpoint left it.',
          entry: { type: 'abandonRun', params: ({ event }) => ({ kind: 'halted' as const, error: event.type === 'session.halt' ? event.error : new Error('the session was halted') }) },
          invoke: {
            id: 'haltWrites',
            src: 'haltWrites',
            input: ({ context, event }) => ({ host: context.host, reason: event.type === 'session.halt' ? event.error : new Error('the session was halted') }),
            onDone: '#session.releasing',
            onError: '#session.releasing',
          },
          on: refuseAll(closed),
        },
      },
    },
    failed: {
      description: 'The session could not be opened: every input is refused with why; dispose lets the lease go.',
      entry: 'refuseDeferred',
      on: {
        ...Object.fromEntries(inputTypes.map((type) => [type, { actions: { type: 'refuse' as const, params: ({ context }: { context: SessionContext }) => notOpen(context) } }])),
        'session.dispose': 'releasing',
        'session.halt': 'releasing',
      },
    },
    releasing: {
      description: 'The lease is let go (a store out of reach cannot take it: it lapses by itself).',
      invoke: { id: 'releaseLease', src: 'releaseLease', input: ({ context }) => ({ host: context.host }), onDone: 'disposed', onError: 'disposed' },
      on: refuseAll(closed),
    },
    disposed: {
      description: 'The session is closed; another agent may open it.',
      type: 'final',
    },
  },
});

export type SessionMachine = typeof sessionMachine;

function notWaiting(host: SessionHost, event: SessionEvent): SessionRefusal {
  const id = 'toolCallId' in event ? event.toolCallId : '';
  const waiting = host.pendingApprovals;
  return { kind: 'not-waiting', message: `tool call "${id}" is not waiting for approval (${waiting.length > 0 ? `waiting: ${waiting.join(', ')}` : 'none is'})` };
}

function waitsForApproval(host: SessionHost): SessionRefusal {
  return { kind: 'busy', message: `its run waits for approval of ${waitingFor(host)}: answer or abort it first` };
}

function notOpen(context: SessionContext): SessionRefusal {
  return { kind: 'not-open', message: `the session could not be opened: ${errorMessage(context.openError)}`, error: context.openError };
}
