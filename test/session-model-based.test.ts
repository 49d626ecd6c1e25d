import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, type Actor, type ActorScope, type AnyEventObject, type EventObject } from 'xstate';
import { sessionMachine } from '../src/session/session-machine.js';
import type { SessionHost } from '../src/session/session-host.js';
import type { SessionEmitted, SessionEvent, SessionRefusal } from '../src/session/session-events.js';
import type { AgentMachineEvent } from '../src/machine/agent-setup.js';
import type { RunResult } from '../src/core/result.js';
import type { AgentEvent } from '../src/core/events.js';
import { pendingApprovalIds } from '../src/machine/approval-updates.js';
import { CoverageRecorder, coverageReport, coverageTargets } from './verification/coverage.js';
import { finishWith, llmErrors, modelConfigs, PROMPT, toolDoneEvent } from './verification/agent-model.js';
import { stubbedAgentMachine } from './verification/stub-machine.js';

/**
 * Model-based tests of the session chart. Its I/O actors (lease, store, writer) are silent stubs
 * and its host is a fake whose answers the test decides, so the test plays the environment: it
 * sends the actors' done and error events, the run's signals (`run.waiting`, `run.ended`, …), a
 * lost lease or a refused write, a crash of the run chart, and every input a caller can send.
 * A breadth-first walk sends every event in every state it reaches; every path is replayed on a
 * fresh actor and checked against an oracle written from the docs' table of inputs (an input is
 * applied, refused with a reason, or waits for the session to open — never nothing), and the
 * replays must cover every state and transition of the chart.
 */

type Emitted = SessionEmitted;

const CALL = 'call-1';
const APPLIED_BEFORE = 'applied-before';
const message: ModelMessage = { role: 'user', content: 'more' };
const result = { outcome: 'completed', text: 'ok', messages: [] } as unknown as RunResult;

/** The inputs a caller can send, each in every state. */
const inputs: Array<{ name: string; event: SessionEvent }> = [
  { name: 'prompt', event: { type: 'session.prompt', messages: [PROMPT], inputId: 'p' } },
  { name: 'live prompt', event: { type: 'session.prompt', messages: [PROMPT], live: true, requestId: 'live-1' } },
  { name: 'steer', event: { type: 'session.steer', message } },
  { name: 'live steer', event: { type: 'session.steer', message, live: true } },
  { name: 'follow-up', event: { type: 'session.follow-up', message } },
  { name: 'approve', event: { type: 'session.approve', toolCallId: CALL } },
  { name: 'approve unknown', event: { type: 'session.approve', toolCallId: 'nope' } },
  { name: 'deny', event: { type: 'session.deny', toolCallId: CALL, reason: 'no' } },
  { name: 'abort', event: { type: 'session.abort', reason: 'stop' } },
  { name: 'resume', event: { type: 'session.resume', requestId: 'resume-1' } },
  { name: 'queue', event: { type: 'session.queue', queue: 'steering', message } },
  { name: 'live follow-up', event: { type: 'session.follow-up', message, live: true } },
];
// Each input again with the request id of one applied before (a retry): the session refuses it as a duplicate.
for (const { name, event } of [...inputs]) {
  if (event.type !== 'session.queue' && !name.includes('duplicate') && !name.includes('live')) inputs.push({ name: `duplicate ${name}`, event: { ...event, requestId: APPLIED_BEFORE } as SessionEvent });
}

/** What the environment can do besides inputs: the stubbed actors' answers and the run's signals. */
const signals: Array<{ name: string; event: AnyEventObject; in?: string }> = [
  { name: 'lease acquired', event: { type: 'xstate.done.actor.acquireLease', output: { epoch: 3 } }, in: 'leasing' },
  { name: 'lease held by another', event: { type: 'xstate.error.actor.acquireLease', error: new Error('held') }, in: 'leasing' },
  { name: 'new session', event: { type: 'xstate.done.actor.loadSession', output: undefined }, in: 'holding.loading' },
  { name: 'stored idle', event: { type: 'xstate.done.actor.loadSession', output: { messages: [], state: 'idle' } }, in: 'holding.loading' },
  { name: 'stored running', event: { type: 'xstate.done.actor.loadSession', output: { messages: [], state: 'running' } }, in: 'holding.loading' },
  { name: 'stored waiting', event: { type: 'xstate.done.actor.loadSession', output: { messages: [], state: 'waiting' } }, in: 'holding.loading' },
  { name: 'unreadable', event: { type: 'xstate.error.actor.loadSession', error: new Error('unreadable') }, in: 'holding.loading' },
  { name: 'created', event: { type: 'xstate.done.actor.createSession', output: { messages: [], state: 'idle' } }, in: 'holding.creating' },
  { name: 'not created', event: { type: 'xstate.error.actor.createSession', error: new Error('read-only') }, in: 'holding.creating' },
  { name: 'run waits', event: { type: 'run.waiting' } },
  { name: 'run goes on', event: { type: 'run.continued' } },
  { name: 'run ended', event: { type: 'run.ended', result } },
  { name: 'lease lost', event: { type: 'session.leaseLost', error: new Error('taken') } },
  { name: 'write failed', event: { type: 'session.writeFailed', error: new Error('disk full') } },
  { name: 'run chart crashed', event: { type: 'xstate.error.actor.agent', error: new Error('bug') }, in: 'holding.live' },
  { name: 'writes settled', event: { type: 'xstate.done.actor.settleWrites', output: undefined }, in: 'holding.closing' },
  { name: 'settling failed', event: { type: 'xstate.error.actor.settleWrites', error: new Error('x') }, in: 'holding.closing' },
  { name: 'halted writes', event: { type: 'xstate.done.actor.haltWrites', output: undefined }, in: 'holding.halting' },
  { name: 'halting failed', event: { type: 'xstate.error.actor.haltWrites', error: new Error('x') }, in: 'holding.halting' },
  { name: 'released', event: { type: 'xstate.done.actor.releaseLease', output: undefined }, in: 'releasing' },
  { name: 'release failed', event: { type: 'xstate.error.actor.releaseLease', error: new Error('x') }, in: 'releasing' },
  { name: 'dispose', event: { type: 'session.dispose' } },
  { name: 'halt', event: { type: 'session.halt', error: new Error('superseded') } },
];

/** The host's answers: whether it has a store and a lease, and which calls wait (the environment says so with `run.waiting`). */
interface Setting {
  name: string;
  store: boolean;
  lease: boolean;
}
const settings: Setting[] = [
  { name: 'store and lease', store: true, lease: true },
  { name: 'store without lease', store: true, lease: false },
  { name: 'no store', store: false, lease: false },
];

/** A fake host that records what the chart asks of it. */
function fakeHost(setting: Setting) {
  const calls: string[] = [];
  const state = { pending: [] as string[], applied: new Set([APPLIED_BEFORE]) };
  const host = {
    hasStore: setting.store,
    hasLease: setting.lease,
    options: { messages: [] },
    get pendingApprovals() {
      return state.pending;
    },
    hasApplied: (id: string) => state.applied.has(id),
    noteRequest: (id: string) => state.applied.add(id),
    startRunFrom: () => calls.push('startRunFrom'),
    announceRestoredApprovals: () => calls.push('announce'),
    runAbandoned: () => calls.push('runAbandoned'),
    endCrashedRun: () => {
      calls.push('endCrashedRun');
      return { messages: [], state: 'ending' as const };
    },
    closeWriter: () => calls.push('closeWriter'),
    warnOfWriteFailure: () => {
      calls.push('warn');
      return 'writing the session failed';
    },
  };
  return { host: host as unknown as SessionHost, calls, state };
}

const silentPromise = () => fromPromise(() => new Promise<never>(() => {}));
const silentCallback = () => fromCallback(() => {});

/** A run chart the session invokes: the agent machine with its actors stubbed, on a test configuration. */
function stubRunChart(config: Record<string, unknown> = modelConfigs.core) {
  return Object.create(stubbedAgentMachine, {
    getInitialSnapshot: {
      value: (scope: ActorScope<never, never>) => stubbedAgentMachine.getInitialSnapshot(scope as never, { config, messages: [] }),
    },
  }) as typeof stubbedAgentMachine;
}

const stubbedSession = (runConfig?: Record<string, unknown>) =>
  sessionMachine.provide({
    actors: {
      runChart: stubRunChart(runConfig),
      acquireLease: silentPromise(),
      loadSession: silentPromise(),
      createSession: silentPromise(),
      leaseRenewer: silentCallback(),
      sessionWriter: silentCallback(),
      settleWrites: silentPromise(),
      haltWrites: silentPromise(),
      releaseLease: silentPromise(),
    } as never,
  });

interface Replay {
  actor: Actor<typeof sessionMachine>;
  emitted: Emitted[];
  calls: string[];
}

/** Replays `events` on a fresh session actor; the run chart's received events are recorded. */
function replay(setting: Setting, events: EventObject[], recorder?: CoverageRecorder): Replay {
  const { host, calls, state } = fakeHost(setting);
  const actor = createActor(stubbedSession(), {
    input: { host },
    inspect: (event) => {
      // The session chart's own microsteps (the run chart's are the other model-based test's), from its first one on.
      if (event.type === '@xstate.microstep' && 'host' in ((event.snapshot as { context?: object }).context ?? {})) recorder?.inspect(event);
    },
  });
  const emitted: Emitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  recorder?.noteState(actor.getSnapshot().value);
  for (const event of events) {
    // The environment's side of a wait: the run chart's calls wait once it says so, and no longer once it goes on or ends.
    if (event.type === 'run.waiting') state.pending = [CALL];
    if (event.type === 'run.continued' || event.type === 'run.ended' || event.type === 'xstate.error.actor.agent') state.pending = [];
    actor.send(event as SessionEvent);
  }
  return { actor, emitted, calls };
}

/** The abstract state a path reaches: the state value, and what the chart's guards read. */
function keyOf(run: Replay): string {
  const snapshot = run.actor.getSnapshot();
  return JSON.stringify([snapshot.value, snapshot.status, snapshot.context.restored, snapshot.context.deferred.length > 0]);
}

function stateOf(run: Replay): string {
  const value = run.actor.getSnapshot().value;
  const name = (v: unknown): string => (typeof v === 'string' ? v : Object.entries(v as object).map(([k, c]) => `${k}.${name(c)}`)[0]!);
  return name(value);
}

type Verdict = { applied: true } | { refused: SessionRefusal['kind'] } | { deferred: true };

/** The oracle: what an input must come to in a state, from the table in docs/architecture.md. */
function expectedVerdict(state: string, input: { name: string; event: SessionEvent }, pending: string[]): Verdict {
  const event = input.event as SessionEvent & { requestId?: string; live?: boolean; toolCallId?: string };
  const opening = ['leasing', 'holding.opening', 'holding.loading', 'holding.creating'].includes(state);
  if (opening) return event.type === 'session.approve' || event.type === 'session.deny' ? { refused: 'not-waiting' } : { deferred: true };
  if (state === 'failed') return { refused: 'not-open' };
  if (state === 'holding.live.stopping') return event.type === 'session.abort' ? { applied: true } : { refused: 'closed' };
  if (!state.startsWith('holding.live')) return { refused: 'closed' };
  if (event.requestId === APPLIED_BEFORE && event.type !== 'session.queue') return { refused: 'duplicate' };
  switch (event.type) {
    case 'session.queue':
    case 'session.resume':
      return { applied: true };
    case 'session.approve':
    case 'session.deny':
      return pending.includes(event.toolCallId) ? { applied: true } : { refused: 'not-waiting' };
    default:
      break;
  }
  if (state === 'holding.live.idle') {
    if (event.type === 'session.abort') return { refused: 'idle' };
    return event.live ? { refused: 'idle' } : { applied: true };
  }
  if (state === 'holding.live.running') return event.type === 'session.prompt' ? { refused: 'busy' } : { applied: true };
  // awaitingApproval
  return event.type === 'session.prompt' || event.type === 'session.follow-up' ? { refused: 'busy' } : { applied: true };
}

function verdictOf(run: Replay, before: number, deferredBefore: number): Verdict | undefined {
  const said = run.emitted.slice(before).filter((event) => event.type === 'session.inputApplied' || event.type === 'session.inputRefused');
  if (said.length > 1) return undefined;
  const [answer] = said;
  if (answer?.type === 'session.inputApplied') return { applied: true };
  if (answer?.type === 'session.inputRefused') return { refused: answer.reason.kind };
  return run.actor.getSnapshot().context.deferred.length === deferredBefore + 1 ? { deferred: true } : undefined;
}

interface WalkResult {
  recorder: CoverageRecorder;
  problems: string[];
  statesWithInputs: Map<string, Set<string>>;
  paths: number;
}

/** Breadth-first over the abstract states: every event in every state reached, each path replayed from the start. */
function walk(): WalkResult {
  const recorder = new CoverageRecorder();
  const problems: string[] = [];
  const statesWithInputs = new Map<string, Set<string>>();
  let paths = 0;
  for (const setting of settings) {
    const seen = new Set<string>();
    let frontier: EventObject[][] = [[]];
    for (let depth = 0; depth < 8 && frontier.length > 0; depth++) {
      const next: EventObject[][] = [];
      for (const path of frontier) {
        const reached = replay(setting, path, recorder);
        const key = keyOf(reached);
        if (seen.has(key) || reached.actor.getSnapshot().status !== 'active') continue;
        seen.add(key);
        const state = stateOf(reached);
        for (const input of inputs) {
          paths++;
          const run = replay(setting, path);
          const pending = [...(run.actor.getSnapshot().context.host.pendingApprovals)];
          const before = run.emitted.length;
          const deferredBefore = run.actor.getSnapshot().context.deferred.length;
          run.actor.send(input.event);
          const verdict = verdictOf(run, before, deferredBefore);
          const expected = expectedVerdict(state, input, pending);
          if (JSON.stringify(verdict) !== JSON.stringify(expected)) {
            problems.push(`[${setting.name}] ${state} after ${path.map((event) => event.type).join(' > ') || '(start)'}: ${input.name} came to ${JSON.stringify(verdict)}, expected ${JSON.stringify(expected)}`);
          }
          (statesWithInputs.get(state) ?? statesWithInputs.set(state, new Set()).get(state)!).add(input.name);
          // Replayed once more with coverage, and explored further.
          replay(setting, [...path, input.event], recorder);
          next.push([...path, input.event]);
        }
        // An actor's answer comes only while it is invoked; the rest (a late signal, a second dispose) may come at any time.
        for (const signal of signals) if (signal.in === undefined || state.startsWith(signal.in)) next.push([...path, signal.event]);
      }
      frontier = next;
    }
  }
  return { recorder, problems, statesWithInputs, paths };
}

describe('the session chart against its test model', () => {
  const result = walk();

  it('applies, refuses or defers every input in every state as the table of inputs says, never nothing', () => {
    console.log(`session model: ${result.paths} input paths over ${result.statesWithInputs.size} states`);
    expect(result.problems.slice(0, 20)).toEqual([]);
  });

  it('sends every input in every state the chart can be in (but the final one)', () => {
    // Not at rest in these: the final state, the compound ones (their children are), and the transient ones.
    const states = coverageTargets(sessionMachine).states.filter((state) => !['disposed', 'starting', 'holding', 'holding.opening', 'holding.live', 'holding.live.resuming'].includes(state));
    for (const state of states) expect([...(result.statesWithInputs.get(state) ?? [])].sort(), state).toEqual(inputs.map((input) => input.name).sort());
  });

  it('covers every state and every transition of the chart', () => {
    // The initial state is transient (`starting`): no snapshot shows it, but a transition taken out of a state entered it.
    for (const key of result.recorder.transitions) result.recorder.states.add(key.slice(0, key.indexOf(' --')));
    const coverage = coverageReport(sessionMachine, result.recorder);
    console.log(`session coverage: states ${coverage.states.covered}/${coverage.states.total}, transitions ${coverage.transitions.covered}/${coverage.transitions.total}`);
    expect(coverage.states.missing, 'states no path entered').toEqual([]);
    expect(coverage.edges.missing, 'machineGraph edges no path took').toEqual([]);
    expect(coverage.transitions.missing, 'defined transitions no path took').toEqual([]);
  });
});

/** Drives the invoked run chart (its actors stubbed) into a state, as the environment of its actors. */
const runStates: Array<{ state: string; config: keyof typeof modelConfigs; events: AgentMachineEvent[]; answer?: AgentMachineEvent }> = [
  { state: 'running.preparing', config: 'core', events: [] },
  { state: 'running.llm.calling', config: 'core', events: [{ type: 'prompt.prepared', messages: [PROMPT] }], answer: { type: 'llm.aborted', message: undefined } as never },
  { state: 'running.llm.streaming', config: 'core', events: [{ type: 'prompt.prepared', messages: [PROMPT] }, { type: 'llm.firstChunk' }], answer: { type: 'llm.aborted', message: undefined } as never },
  { state: 'running.retrying', config: 'core', events: [{ type: 'prompt.prepared', messages: [PROMPT] }, { type: 'llm.error', error: llmErrors.rateLimit }] },
  { state: 'running.toolExec', config: 'core', events: [{ type: 'prompt.prepared', messages: [PROMPT] }, finishWith('tool-calls', [{ toolCallId: 'call-1-0', toolName: 'echo', input: {} }])] },
  { state: 'running.approving', config: 'approvals', events: [{ type: 'prompt.prepared', messages: [PROMPT] }, finishWith('tool-calls', [{ toolCallId: 'call-1-0', toolName: 'echo', input: {} }])] },
  {
    state: 'running.awaitingApproval',
    config: 'approvals',
    events: [
      { type: 'prompt.prepared', messages: [PROMPT] },
      finishWith('tool-calls', [{ toolCallId: 'call-1-0', toolName: 'echo', input: {} }]),
      { type: 'xstate.done.actor.approval', output: [{ decision: 'ask', reason: 'policy' }] } as never,
    ],
  },
  { state: 'running.compacting', config: 'compaction', events: [{ type: 'prompt.prepared', messages: [PROMPT] }, finishWith('length', [], { text: 'cut' })] },
  {
    state: 'running.checkingStop',
    config: 'core',
    events: [
      { type: 'prompt.prepared', messages: [PROMPT] },
      finishWith('tool-calls', [{ toolCallId: 'call-1-0', toolName: 'echo', input: {} }]),
      toolDoneEvent(1, 0, { toolCallId: 'call-1-0', toolName: 'echo', input: {} }),
    ],
  },
];

describe('a lost lease or a refused write in every state of the run', () => {
  const stateName = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as object).map(([k, c]) => `${k}.${stateName(c)}`)[0]!);

  for (const loss of ['session.leaseLost', 'session.writeFailed'] as const) {
    it.each(runStates)(`${loss} in $state ends the run failed (session-write) in one place`, ({ state, config, events, answer }) => {
      const setting = { name: 'store and lease', store: true, lease: true };
      const { host, calls } = fakeHost(setting);
      const runConfig = state === 'running.checkingStop' ? { ...modelConfigs[config], hasStopConditions: true } : modelConfigs[config];
      const actor = createActor(stubbedSession(runConfig), { input: { host } });
      actor.start();
      actor.send({ type: 'xstate.done.actor.acquireLease', output: { epoch: 1 } } as never);
      actor.send({ type: 'xstate.done.actor.loadSession', output: { messages: [], state: 'idle' } } as never);
      actor.send({ type: 'session.prompt', messages: [PROMPT], inputId: 'p' });
      const run = actor.getSnapshot().children.agent as unknown as Actor<typeof stubbedAgentMachine>;
      const runEnds: AgentEvent[] = [];
      run.on('run-end', (event) => runEnds.push(event as AgentEvent));
      for (const event of events) run.send(event);
      expect(stateName(run.getSnapshot().value)).toBe(state);
      if (state === 'running.awaitingApproval') expect(pendingApprovalIds(run.getSnapshot().context)).toEqual(['call-1-0']);

      actor.send(loss === 'session.leaseLost' ? { type: loss, error: Object.assign(new Error('taken by worker-b'), { name: 'LeaseLostError' }) as never } : { type: loss, error: new Error('disk full') });
      // In a model call, the llm actor is asked for what it streamed and answers `llm.aborted`: then the run ends.
      if (answer) run.send(answer);

      expect(stateName(run.getSnapshot().value)).toBe('idle');
      expect(runEnds).toHaveLength(1);
      expect(runEnds[0]).toMatchObject({ type: 'run-end', result: { outcome: 'failed', error: { kind: 'session-write' } } });
      expect(calls.filter((call) => call === 'warn')).toHaveLength(1);
      expect(calls.includes('closeWriter')).toBe(loss === 'session.leaseLost');
      // The session hears of the run's end when it is delivered, and goes back to idle.
      actor.send({ type: 'run.ended', result: (runEnds[0] as Extract<AgentEvent, { type: 'run-end' }>).result });
      expect(actor.getSnapshot().matches({ holding: { live: 'idle' } })).toBe(true);
    });
  }
});
