/**
 * Inspector overhead: a 50-step tool loop (deltas never reach the inspector:
 * state changes do) with the WebSocket inspector attached, through the
 * 127.0.0.1 relay, with a receiver reading everything, against the same run
 * without it. Both the wall time and the process CPU are counted until the
 * receiver has the run's end, so serialising snapshots after `run()` returned
 * is not hidden.
 */
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { createAgent } from '../src/agent.js';
import { createWebSocketInspector } from '../src/inspect/inspectors.js';
import { startInspectorRelay } from '../src/inspect/inspector-relay.js';
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

async function inspectedRun(): Promise<{ wall: number; cpu: number }> {
  const relay = await startInspectorRelay();
  const received: StatelyInspectionEvent[] = [];
  const receiver = createWebSocketReceiver({ server: relay.webSocketUrl });
  receiver.subscribe((event) => received.push(event));
  const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
  await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const agent = createAgent({ ...loop(), inspect: inspector.inspect });
    const result = await agent.run('go');
    check(result.outcome === 'completed', 'the inspected run must complete');
    // Finished only once the receiver has the final idle snapshot of the root.
    const sawEnd = () =>
      received.some((event) => event.type === '@xstate.snapshot' && event.rootId === event.sessionId && stateName((event.snapshot as unknown as { value: unknown }).value) === 'idle' && event.event.type !== 'xstate.init');
    while (!sawEnd()) {
      if (performance.now() - started > 60_000) throw new Error('the receiver never got the end of the run');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { wall: performance.now() - started, cpu: cpuMs(cpu) };
  } finally {
    inspector.stop();
    await relay.close();
  }
}

export async function inspectorBench(): Promise<Row[]> {
  await plainRun();
  const plain: Array<{ wall: number; cpu: number }> = [];
  const inspected: Array<{ wall: number; cpu: number }> = [];
  for (let round = 0; round < 5; round++) {
    plain.push(await plainRun());
    inspected.push(await inspectedRun());
  }
  const wall = (runs: typeof plain) => median(runs.map((run) => run.wall));
  const cpu = (runs: typeof plain) => median(runs.map((run) => run.cpu));
  const wallOverhead = wall(inspected) / wall(plain);
  const cpuOverhead = cpu(inspected) / cpu(plain);
  return [
    { figure: `loopchart, ${TOOL_STEPS}-step tool loop, no inspector`, value: `${wall(plain).toFixed(1)} ms wall, ${cpu(plain).toFixed(1)} ms CPU` },
    {
      figure: 'same run, WebSocket inspector attached (until the receiver has the end)',
      value: `${wall(inspected).toFixed(1)} ms wall, ${cpu(inspected).toFixed(1)} ms CPU`,
      ratio: `${ratio(cpuOverhead)} the CPU without (${ratio(wallOverhead)} wall)`,
      target: '<= 1.5x',
      ok: cpuOverhead <= 1.5,
    },
  ];
}
