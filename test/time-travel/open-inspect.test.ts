/**
 * `loopchart open SESSION --inspect`, run as the built CLI: a session recorded with a retry, tools,
 * a compaction and an approval is replayed through loopchart's inspector relay (127.0.0.1), and
 * what a Stately receiver and the relay's own page get from it is checked: valid inspection
 * events, whose snapshots walk the states of the run's trace in order.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInspector, createWebSocketReceiver, type StatelyActorEvent, type StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameEvents } from '../../src/inspect/inspection-frame.js';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { stateName } from '../../src/machine/state-name.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';
import { buildCli, cleanEnv, startCli, waitFor, type CliProcess } from '../cli/support/cli-process.js';
import { recordSession } from '../support/recorded-session.js';

const PAGE = /inspector: open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+) /;

let dir: string;
const processes: CliProcess[] = [];
const sockets: WebSocket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-open-inspect-'));
  await buildCli();
}, 180_000);

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  for (const cli of processes) {
    if (cli.child.exitCode === null) cli.child.kill('SIGINT');
    await cli.done;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `loopchart open … --inspect` started, and the relay page it printed. */
async function openInspect(args: string[]): Promise<{ pageUrl: string; cli: CliProcess }> {
  const cli = startCli(['open', ...args, '--inspect'], { env: cleanEnv(), timeoutMs: 120_000 });
  processes.push(cli);
  await waitFor(() => PAGE.test(cli.stderr) || cli.child.exitCode !== null, 'loopchart open --inspect to print its page', 30_000);
  const pageUrl = PAGE.exec(cli.stderr)?.[1];
  if (pageUrl === undefined) throw new Error(`loopchart open --inspect did not start: ${cli.stderr}`);
  return { pageUrl, cli };
}

/** The relay's WebSocket, as the page it serves connects to it (same token, the page's origin). */
async function connectAsPage(pageUrl: string): Promise<unknown[]> {
  const url = new URL(pageUrl);
  const socket = new WebSocket(`ws://${url.host}/${url.search}`, { headers: { origin: url.origin } });
  sockets.push(socket);
  const events: unknown[] = [];
  socket.on('message', (data: Buffer) => events.push(...frameEvents(data.toString())));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' }));
  return events;
}

type Snapshot = { status: string; value: unknown; context: Record<string, unknown> };

/** The agent actor as `@statelyai/inspect` itself announces a live one (the whole definition, not cut at its default depth) and its protocol version. */
function liveAgentActor(): StatelyActorEvent {
  const sent: StatelyInspectionEvent[] = [];
  createInspector({ send: (event) => sent.push(event) }, { serializationDepthLimit: 100 }).actor({ sessionId: 'live', logic: agentMachine } as never);
  return sent[0] as StatelyActorEvent;
}

/** What the Stately inspector reads of every event, checked; the state names the snapshots walk, in order. */
function checkedStates(events: StatelyInspectionEvent[]): string[] {
  const [actor, ...rest] = events;
  expect(actor).toMatchObject({ type: '@xstate.actor', name: 'agent' });
  const sessionId = actor!.sessionId;
  // The machine as the inspector draws a live agent: every guard in it (an `and(…)` guard is a function).
  const live = liveAgentActor();
  expect(JSON.parse((actor as StatelyActorEvent).definition!)).toEqual(JSON.parse(live.definition!));
  const ids = new Set<string>();
  for (const event of events) {
    expect(event).toMatchObject({ rootId: sessionId, sessionId, _version: live._version });
    expect(Number.isFinite(Number(event.createdAt))).toBe(true);
    expect(ids.has(event.id)).toBe(false);
    ids.add(event.id);
  }
  const states: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const event = rest[index]!;
    if (event.type === '@xstate.event') {
      // An eventless transition is not an event the actor received (a live inspector shows none for it).
      expect(event.event.type).not.toBe('always');
      // The snapshot the event left the machine in follows it, naming the same event.
      const next = rest[index + 1];
      expect(next?.type).toBe('@xstate.snapshot');
      expect((next as { event: unknown }).event).toEqual(event.event);
      continue;
    }
    expect(event.type).toBe('@xstate.snapshot');
    const snapshot = (event as unknown as { snapshot: Snapshot }).snapshot;
    expect(snapshot.status).toBe('active');
    const name = stateName(snapshot.value);
    // A state value the machine has: every step of its path is a state node.
    expect(agentMachine.getStateNodeById(`${agentMachine.id}.${name}`)).toBeDefined();
    states.push(name);
  }
  return states;
}

describe('loopchart open --inspect', () => {
  it('replays the recorded session through the relay as inspection events whose snapshots walk the trace’s states in order', { timeout: 180_000 }, async () => {
    const sessions = path.join(dir, 'sessions');
    const store = fileStore(sessions);
    const { result } = await recordSession(store, 'inspected');
    const view = (await openSessionRecord(store, 'inspected'))!;
    const [run] = view.runs;
    const { pageUrl, cli } = await openInspect(['inspected', '--session', sessions]);
    expect(cli.stderr).toMatch(/\(\d+ inspection events\)/);
    const expectedCount = Number(/\((\d+) inspection events\)/.exec(cli.stderr)![1]);

    const url = new URL(pageUrl);
    const received: StatelyInspectionEvent[] = [];
    const receiver = createWebSocketReceiver({ server: `ws://${url.host}/${url.search}` });
    receiver.subscribe((event) => received.push(event));
    const pageEvents = await connectAsPage(pageUrl);
    await waitFor(() => received.length >= expectedCount && pageEvents.length >= expectedCount, 'the replayed events at the receiver and the page', 30_000);

    const states = checkedStates(received);
    // One snapshot per transition of the timeline, in its order, and so the trace's states.
    expect(states).toEqual(run!.timeline.map((point) => point.to));
    // The trace's states, from the idle the agent actor begins in; the replay ends back in idle.
    const entered = result.trace!.states.map((state) => state.state);
    expect(['idle', ...states.filter((state, index) => state !== states[index - 1])]).toEqual([...entered, 'idle']);
    // The event log holds the events the machine took, in order, and only those.
    const taken = received.flatMap((event) => (event.type === '@xstate.event' ? [event.event.type] : []));
    expect(taken).toEqual(run!.timeline.flatMap((point) => (point.event === 'always' ? [] : [point.event])));
    expect(states).toEqual(expect.arrayContaining(['running.retrying', 'running.compacting', 'running.awaitingApproval', 'running.toolExec']));
    expect(states.at(-1)).toBe('idle');
    // The page gets the same stream, event for event.
    expect(pageEvents).toEqual(received.map((event) => JSON.parse(JSON.stringify(event)) as unknown));

    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(0);
  });
});
