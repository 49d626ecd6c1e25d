/**
 * Many agents at once: N concurrent agents (100 and 1,000), each a 5-step
 * tool loop (4 calls of `echo`, then an answer) on zero-latency models; wall
 * time and process CPU per agent-step, against ToolLoopAgent on the same
 * workload. CPU is `process.cpuUsage()` over the whole batch, so work left
 * running after the last run ended is not hidden (the next batch starts after
 * a pause). The 1,000-agent batch of loopchart also runs in two fresh
 * processes (bench/many-agents-child.ts), one with V8's default young
 * generation and one with `--max-semi-space-size=64`, to show what the
 * garbage collector costs there.
 */
import { isStepCount, ToolLoopAgent } from 'ai';
import { createAgent } from '../src/index.js';
import { childReport } from './child-report.js';
import { amount, check, echoTool, median, ratio, toolLoopModel, type Row } from './support.js';

const TOOL_STEPS = 4;
const STEPS = TOOL_STEPS + 1;
const tools = { echo: echoTool };

export async function loopchartBatch(count: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: count }, () => createAgent({ model: toolLoopModel(TOOL_STEPS), tools, maxSteps: STEPS }).run('go')),
  );
  check(results.every((result) => result.outcome === 'completed' && result.stepCount === STEPS), 'every loopchart agent must complete its 5 steps');
}

async function toolLoopAgentBatch(count: number): Promise<void> {
  const steps = await Promise.all(
    Array.from({ length: count }, async () => {
      const result = await new ToolLoopAgent({ model: toolLoopModel(TOOL_STEPS), tools, stopWhen: isStepCount(STEPS), maxRetries: 0 }).stream({ prompt: 'go' });
      let finished = 0;
      for await (const part of result.stream) if (part.type === 'finish-step') finished++;
      return finished;
    }),
  );
  check(steps.every((finished) => finished === STEPS), 'every ToolLoopAgent must finish its 5 steps');
}

/** Wall ms and CPU ms of one batch, after the process has settled. */
export async function measure(batch: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await batch();
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** CPU ms of five 1,000-agent loopchart batches in a fresh process started with `flags`. */
async function batchesInChild(flags: string[]): Promise<number[]> {
  const cpu = await childReport<number[]>('many-agents-child.ts', flags);
  check(Array.isArray(cpu) && cpu.length === 5, `many-agents child reported ${JSON.stringify(cpu)}`);
  return cpu;
}

export async function manyAgentsBench(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const count of [100, 1_000]) {
    const ours: Array<{ wall: number; cpu: number }> = [];
    const theirs: Array<{ wall: number; cpu: number }> = [];
    await loopchartBatch(count);
    await toolLoopAgentBatch(count);
    for (let round = 0; round < 5; round++) {
      if (round % 2 === 0) {
        ours.push(await measure(() => loopchartBatch(count)));
        theirs.push(await measure(() => toolLoopAgentBatch(count)));
      } else {
        theirs.push(await measure(() => toolLoopAgentBatch(count)));
        ours.push(await measure(() => loopchartBatch(count)));
      }
    }
    const agentSteps = count * STEPS;
    const cpuPerStep = median(ours.map((run) => run.cpu)) / agentSteps;
    const theirCpuPerStep = median(theirs.map((run) => run.cpu)) / agentSteps;
    rows.push({
      figure: `${count.toLocaleString('en')} concurrent 5-step agents: CPU per agent-step`,
      value: `${cpuPerStep.toFixed(3)} ms (wall ${median(ours.map((run) => run.wall)).toFixed(0)} ms)`,
      ratio: `${ratio(cpuPerStep / theirCpuPerStep)} ToolLoopAgent (${theirCpuPerStep.toFixed(3)} ms, wall ${median(theirs.map((run) => run.wall)).toFixed(0)} ms)`,
      measure: amount(cpuPerStep, 'ms', 3),
      ...(count === 1_000 ? { target: '<= 0.3 ms', max: 0.3, headline: '(e) 1,000 concurrent 5-step agents, CPU per agent-step' } : {}),
    });
  }
  // Fresh processes, one after the other: both start from the same state, and differ only in the flag.
  const perStep = (cpu: number[]) => median(cpu) / (1_000 * STEPS);
  const standard = perStep(await batchesInChild([]));
  const larger = perStep(await batchesInChild(['--max-semi-space-size=64']));
  rows.push(
    { figure: '  1,000 agents in a fresh process, V8\'s default young generation', value: `${standard.toFixed(3)} ms`, measure: amount(standard, 'ms', 3) },
    {
      figure: '  1,000 agents in a fresh process, node --max-semi-space-size=64',
      value: `${larger.toFixed(3)} ms`,
      ratio: `${ratio(larger / standard)} the default`,
      measure: amount(larger, 'ms', 3),
    },
  );
  return rows;
}
