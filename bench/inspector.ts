/**
 * Inspector overhead: a 50-step tool loop (deltas never reach the inspector:
 * state changes do) with the WebSocket inspector attached, through the
 * 127.0.0.1 relay, with a viewer that reads everything as the relay's page
 * does, against the same run without it. Both the wall time and the process CPU are counted until the
 * receiver has the run's end, so serialising snapshots after `run()` returned
 * is not hidden.
 */
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';
import { createAgent } from '../src/agent.js';
import { createWebSocketInspector } from '../src/inspect/inspectors.js';
import { startInspectorRelay, type InspectorRelay } from '../src/inspect/inspector-relay.js';
import { frameEventTexts } from '../src/inspect/inspection-frame.js';
import { stateName } from '../src/machines/state-name.js';
import { check, echoTool, median, ratio, toolLoopModel, type Row } from './support.js';

const TOOL_STEPS = 50;
const loop = () => ({ model: toolLoopModel(TOOL_STEPS), tools: { echo: echoTool }, maxSteps: TOOL_STEPS + 1 });

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function plainRun(): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await createAgent(loop()).run('go');
  check(result.outcome === 'completed' && result.steps === TOOL_STEPS + 1, 'the plain run must complete the loop');
  return { wall: performance.now() - started, cpu: cpuMs(cpu) };
}

interface InspectedRun {
  wall: number;
  cpu: number;
  events: number;
  frames: number;
}

async function inspectedRun(): Promise<InspectedRun> {
  const relay = await startInspectorRelay();
  const viewer = await openViewer(relay);
  const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
  await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const agent = createAgent({ ...loop(), inspect: inspector.inspect });
    const result = await agent.run('go');
    check(result.outcome === 'completed', 'the inspected run must complete');
    // Finished only once the viewer has the final idle snapshot of the root.
    const timeout = setTimeout(() => viewer.failed(new Error('the viewer never got the end of the run')), 60_000);
    await viewer.ended;
    clearTimeout(timeout);
    return { wall: performance.now() - started, cpu: cpuMs(cpu), events: viewer.events, frames: viewer.frames };
  } finally {
    inspector.stop();
    viewer.socket.close();
    await relay.close();
  }
}

/**
 * What the relay's page does in the browser, here in this process: it connects from the relay's
 * origin, says it is there, and reads every frame (batch frames whole), parsing each event.
 * `ended` resolves when the root's final `idle` snapshot arrives.
 */
async function openViewer(relay: InspectorRelay) {
  const socket = new WebSocket(relay.webSocketUrl, { headers: { origin: new URL(relay.pageUrl).origin } });
  let end!: () => void;
  let failed!: (error: Error) => void;
  const viewer = { socket, events: 0, frames: 0, ended: new Promise<void>((resolve, reject) => ((end = resolve), (failed = reject))), failed: (error: Error) => failed(error) };
  socket.on('message', (data: Buffer) => {
    viewer.frames++;
    for (const text of frameEventTexts(data.toString())) {
      const event = JSON.parse(text) as StatelyInspectionEvent;
      viewer.events++;
      if (event.type === '@xstate.snapshot' && event.rootId === event.sessionId && event.event.type !== 'xstate.init' && stateName((event.snapshot as unknown as { value: unknown }).value) === 'idle') end();
    }
  });
  socket.on('open', () => socket.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' })));
  await relay.viewerConnected();
  return viewer;
}

export async function inspectorBench(): Promise<Row[]> {
  await plainRun();
  const plain: Array<{ wall: number; cpu: number }> = [];
  const inspected: InspectedRun[] = [];
  for (let round = 0; round < 9; round++) {
    plain.push(await plainRun());
    inspected.push(await inspectedRun());
  }
  const wall = (runs: Array<{ wall: number }>) => median(runs.map((run) => run.wall));
  const cpu = (runs: Array<{ cpu: number }>) => median(runs.map((run) => run.cpu));
  // Ratios are paired by round: each inspected run against the plain run just before it.
  const wallOverhead = median(inspected.map((run, round) => run.wall / plain[round]!.wall));
  const cpuOverhead = median(inspected.map((run, round) => run.cpu / plain[round]!.cpu));
  const { events, frames } = inspected.at(-1)!;
  return [
    { figure: `loopchart, ${TOOL_STEPS}-step tool loop, no inspector`, value: `${wall(plain).toFixed(1)} ms wall, ${cpu(plain).toFixed(1)} ms CPU` },
    {
      figure: `same run, WebSocket inspector attached (until the viewer has the end; ${events} events in ${frames} frame${frames === 1 ? '' : 's'})`,
      value: `${wall(inspected).toFixed(1)} ms wall, ${cpu(inspected).toFixed(1)} ms CPU`,
      ratio: `${ratio(cpuOverhead)} the CPU without (${ratio(wallOverhead)} wall)`,
      target: '<= 1.5x',
      ok: cpuOverhead <= 1.5,
    },
  ];
}
