/**
 * What a step costs as the session grows: a 10-step tool loop (ten calls of `echo`, then an
 * answer) run by an agent that starts with 10 and one that starts with 10,000 messages of history,
 * with a `fileStore` and without a store; the cost per step of the loop. A multi-step loop, not a
 * one-step run: a run's fixed cost (its start, the prompt, the end) would hide what each step
 * pays for the history.
 *
 * Each round makes its agents afresh from the history (untimed: creating a session writes it),
 * warms them with two runs, and more until what the block made (the history, and its prompt
 * converted by the first run) has left V8's young generation (at most ten runs), and measures five;
 * each run adds 22 messages, so the small agent's history stays small (at most 230 messages when
 * its measured runs begin). With two warm-up runs only, the measured steps of a 10,000-message
 * block paid for the collector copying those, just made, out of the young generation (about 7 MB,
 * once per block): a cost of building the session for the benchmark, which a session that grew to
 * 10,000 messages paid long before. The two sizes alternate in every round, and the ratio is paired
 * by round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgent } from '../src/agent.js';
import type { RunResult } from '../src/core/result.js';
import { fileStore } from '../src/persistence/file-store.js';
import { watchYoungGeneration } from './young-generation.js';
import { amount, check, echoTool, forgetfulToolLoopModel, history, median, pairedRatio, ratio, times, type Row } from './support.js';

const TOOL_STEPS = 10;
const STEPS = TOOL_STEPS + 1;
const WARM_UP_RUNS = 2;
const MAX_WARM_UP_RUNS = 10;
const MEASURED_RUNS = 5;
const ROUNDS = 8;

let sessions = 0;

/** A block of one size: a fresh agent, warmed up; returns the median milliseconds per step of its measured runs. */
async function block(count: number, dir: string | undefined): Promise<number> {
  const agent = createAgent({
    model: forgetfulToolLoopModel(TOOL_STEPS),
    tools: { echo: echoTool },
    maxSteps: STEPS,
    messages: history(count),
    ...(dir ? { store: fileStore(dir), sessionId: `history-${count}-${++sessions}` } : {}),
  });
  await agent.ready();
  const perStep: number[] = [];
  // The first run converts the history for the model: from then on, what the block made is made.
  checkRun(count, await agent.run('go'));
  let warmUps = 1;
  const young = watchYoungGeneration();
  while (warmUps < WARM_UP_RUNS || (warmUps < MAX_WARM_UP_RUNS && !(await young.hasAged()))) {
    checkRun(count, await agent.run('go'));
    warmUps++;
  }
  young.stop();
  for (let run = 0; run < MEASURED_RUNS; run++) {
    const started = performance.now();
    const result = await agent.run('go');
    perStep.push((performance.now() - started) / STEPS);
    checkRun(count, result);
  }
  check(agent.messages.length === count + (warmUps + MEASURED_RUNS) * (2 + 2 * TOOL_STEPS), `the ${count}-message agent's history has ${agent.messages.length} messages`);
  await agent.dispose();
  return median(perStep);
}

function checkRun(count: number, result: RunResult): void {
  check(
    result.outcome === 'completed' && result.stepCount === STEPS && result.toolCallCount === TOOL_STEPS,
    `the ${count}-message loop went wrong: ${result.outcome}, ${result.stepCount} steps, ${result.toolCallCount} tool calls`,
  );
}

/** Per-step medians of the two sizes, alternating which goes first; the first round warms up. */
export async function historyRounds(dir: string | undefined): Promise<{ small: number[]; large: number[] }> {
  const measured = { small: [] as number[], large: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const size of order) {
      const perStep = await block(size === 'small' ? 10 : 10_000, dir);
      if (round > 0) measured[size].push(perStep);
    }
  }
  return measured;
}

export async function historyGrowthBench(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-bench-'));
  try {
    const stored = await historyRounds(dir);
    const plain = await historyRounds(undefined);
    const storedGrowth = pairedRatio(stored.large, stored.small);
    const plainGrowth = pairedRatio(plain.large, plain.small);
    const ms = (values: number[]) => `${median(values).toFixed(3)} ms/step`;
    const loop = `${TOOL_STEPS}-step tool loop`;
    return [
      { figure: `${loop} with fileStore, from 10 messages of history`, value: ms(stored.small), measure: amount(median(stored.small), 'ms', 3) },
      {
        figure: `${loop} with fileStore, from 10,000 messages of history`,
        value: ms(stored.large),
        ratio: `${ratio(storedGrowth)} the 10-message step`,
        measure: times(storedGrowth),
        target: '<= 1.3x',
        max: 1.3,
        headline: '(d) a step at 10,000 messages vs at 10, fileStore, multi-step loop',
      },
      { figure: `${loop} without a store, from 10 messages of history`, value: ms(plain.small), measure: amount(median(plain.small), 'ms', 3) },
      {
        figure: `${loop} without a store, from 10,000 messages of history`,
        value: ms(plain.large),
        ratio: `${ratio(plainGrowth)} the 10-message step`,
        measure: times(plainGrowth),
        target: '<= 1.3x',
        max: 1.3,
        headline: '(d) a step at 10,000 messages vs at 10, no store, multi-step loop',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
