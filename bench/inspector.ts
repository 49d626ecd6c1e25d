/**
 * Inspector overhead: a 50-step tool loop (deltas never reach the inspector:
 * state changes do) with the WebSocket inspector attached, through the
 * 127.0.0.1 relay (in this process, as the CLI's `--inspect` runs it), with a
 * viewer that reads everything as the relay's page does, in a process of its
 * own as the browser is, against the same run without it. Both the wall time
 * and this process's CPU are counted until the viewer has the run's end, so
 * serialising snapshots after `run()` returned is not hidden.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../src/agent.js';
import { createWebSocketInspector } from '../src/inspect/inspectors.js';
import { startInspectorRelay, type InspectorRelay } from '../src/inspect/inspector-relay.js';
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
    const { events, frames } = await viewer.ended;
    return { wall: performance.now() - started, cpu: cpuMs(cpu), events, frames };
  } finally {
    inspector.stop();
    viewer.child.kill();
    await relay.close();
  }
}

/**
 * The relay's page, in its own process (bench/inspector-viewer.ts) as the browser is: its parsing is
 * not the agent process's CPU. `ended` resolves when it reports the root's final `idle` snapshot.
 */
async function openViewer(relay: InspectorRelay) {
  const script = fileURLToPath(new URL('./inspector-viewer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), script, relay.webSocketUrl, new URL(relay.pageUrl).origin], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timeout);
        lines.off('line', onLine);
        child.off('exit', onExit);
        outcome();
      };
      const timeout = setTimeout(() => settle(() => reject(new Error(`the viewer never said "${prefix}"`))), 60_000);
      const onLine = (text: string) => {
        if (text.startsWith(prefix)) settle(() => resolve(text));
      };
      const onExit = (code: number | null) => settle(() => reject(new Error(`the viewer exited (${code}) before it said "${prefix}"`)));
      lines.on('line', onLine);
      child.once('exit', onExit);
    });
  await line('connected');
  await relay.viewerConnected();
  const ended = line('ended').then((text) => {
    const [, events, frames] = text.split(' ');
    return { events: Number(events), frames: Number(frames) };
  });
  ended.catch(() => undefined);
  return { child, ended };
}

export async function inspectorBench(): Promise<Row[]> {
  // Both paths once before measuring, so that neither pays for its first compilation in the figures.
  await plainRun();
  await inspectedRun();
  const plain: Array<{ wall: number; cpu: number }> = [];
  const inspected: InspectedRun[] = [];
  for (let round = 0; round < 15; round++) {
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
      figure: `same run, WebSocket inspector and relay attached (until the viewer, another process, has the end; ${events} events in ${frames} frame${frames === 1 ? '' : 's'})`,
      value: `${wall(inspected).toFixed(1)} ms wall, ${cpu(inspected).toFixed(1)} ms CPU`,
      ratio: `${ratio(cpuOverhead)} the CPU without (${ratio(wallOverhead)} wall)`,
      target: '<= 1.5x',
      ok: cpuOverhead <= 1.5,
    },
  ];
}
