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
import { amount, check, echoTool, median, ratio, times, toolLoopModel, type Row } from './support.js';

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
  check(result.outcome === 'completed' && result.stepCount === TOOL_STEPS + 1, 'the plain run must complete the loop');
  return { wall: performance.now() - started, cpu: cpuMs(cpu) };
}

interface InspectedRun {
  wall: number;
  cpu: number;
  events: number;
  frames: number;
}

/** A relay with a viewer connected and an inspector sending to it: `run()` measures one inspected run (bench/profile.ts's `loop-inspected` too). */
export async function inspectedSetup() {
  const relay = await startInspectorRelay();
  const viewer = await openViewer(relay);
  const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
  await new Promise((resolve) => setTimeout(resolve, 100));
  let seen = { events: 0, frames: 0 };
  return {
    async run(): Promise<InspectedRun> {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const ended = viewer.nextEnd();
      const result = await createAgent({ ...loop(), inspect: inspector.inspect }).run('go');
      check(result.outcome === 'completed', 'the inspected run must complete');
      // Finished only once the viewer has the final idle snapshot of this run's root.
      const total = await ended;
      const run = { wall: performance.now() - started, cpu: cpuMs(cpu), events: total.events - seen.events, frames: total.frames - seen.frames };
      seen = total;
      return run;
    },
    async close() {
      inspector.stop();
      viewer.child.kill();
      await relay.close();
    },
  };
}

/**
 * The relay's page, in its own process (bench/inspector-viewer.ts) as the browser is: its parsing is
 * not the agent process's CPU. `nextEnd()` resolves when it reports the next root's final `idle`
 * snapshot, with the events and frames it has read so far.
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
  return {
    child,
    nextEnd: async () => {
      const [, events, frames] = (await line('ended')).split(' ');
      return { events: Number(events), frames: Number(frames) };
    },
  };
}

const RUNS_PER_BLOCK = 4;

/**
 * Rounds as `measureRounds` runs them (bench/support.ts): both contestants in every round, the
 * order alternating, each a block of consecutive runs whose first is not counted (it pays for the
 * garbage the other left). The inspected block has one relay, viewer and inspector, made before it.
 */
export async function inspectorBench(): Promise<Row[]> {
  const warmup = 2;
  const rounds = 15;
  const plain: Array<{ wall: number; cpu: number }> = [];
  const inspected: InspectedRun[] = [];
  const plainBlock = async () => {
    const block: Array<{ wall: number; cpu: number }> = [];
    for (let run = 0; run < RUNS_PER_BLOCK; run++) block.push(await plainRun());
    return block.slice(1);
  };
  const inspectedBlock = async () => {
    const setup = await inspectedSetup();
    try {
      const block: InspectedRun[] = [];
      for (let run = 0; run < RUNS_PER_BLOCK; run++) block.push(await setup.run());
      return block.slice(1);
    } finally {
      await setup.close();
    }
  };
  const middle = <T extends { cpu: number }>(block: T[]) => [...block].sort((a, b) => a.cpu - b.cpu)[block.length >> 1]!;
  for (let round = 0; round < warmup + rounds; round++) {
    let plainRuns: Array<{ wall: number; cpu: number }>;
    let inspectedRuns: InspectedRun[];
    if (round % 2 === 0) {
      plainRuns = await plainBlock();
      inspectedRuns = await inspectedBlock();
    } else {
      inspectedRuns = await inspectedBlock();
      plainRuns = await plainBlock();
    }
    if (round < warmup) continue;
    plain.push(middle(plainRuns));
    inspected.push(middle(inspectedRuns));
  }
  const wall = (runs: Array<{ wall: number }>) => median(runs.map((run) => run.wall));
  const cpu = (runs: Array<{ cpu: number }>) => median(runs.map((run) => run.cpu));
  // Ratios are paired by round: each round's inspected block against its plain block.
  const wallOverhead = median(inspected.map((run, round) => run.wall / plain[round]!.wall));
  const cpuOverhead = median(inspected.map((run, round) => run.cpu / plain[round]!.cpu));
  const { events, frames } = inspected.at(-1)!;
  return [
    { figure: `loopchart, ${TOOL_STEPS}-step tool loop, no inspector`, value: `${wall(plain).toFixed(1)} ms wall, ${cpu(plain).toFixed(1)} ms CPU`, measure: amount(cpu(plain), 'ms', 1) },
    {
      figure: 'same run, WebSocket inspector and relay attached (until the viewer, another process, has the end)',
      value: `${wall(inspected).toFixed(1)} ms wall, ${cpu(inspected).toFixed(1)} ms CPU; ${events} events in ${frames} frame${frames === 1 ? '' : 's'}`,
      ratio: `${ratio(cpuOverhead)} the CPU without (${ratio(wallOverhead)} wall)`,
      measure: times(cpuOverhead),
      target: '<= 1.5x',
      max: 1.5,
      headline: '(e) the WebSocket inspector and relay, CPU vs the same run without',
    },
  ];
}
