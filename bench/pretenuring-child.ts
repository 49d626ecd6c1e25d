/**
 * The figures bench/pretenuring.ts compares, measured in a fresh process started with whatever V8
 * flags are being compared: the 50-step loop (loopchart, the machine alone, the XState baseline,
 * `ToolLoopAgent`) per step, and a step without a store at 10,000 messages of history against one at
 * 10; and XState alone, a transition that copies a 10,000-element context array, with and without a
 * custom action. Prints one JSON line.
 *
 *   node --expose-gc --no-allocation-site-pretenuring --import tsx bench/pretenuring-child.ts
 */
import { historyRounds } from './history-growth.js';
import { loopchartLoop, STEPS, toolLoopAgent } from './loop.js';
import { measureRounds, median, pairedRatio } from './support.js';
import { copyingTransitionMicros } from './xstate-action-survival.js';
import { xstateToolLoop } from './xstate-baseline.js';

export interface PretenuringReport {
  /** Milliseconds per step of the 50-step loop, medians over the rounds. */
  loopchart: number;
  machine: number;
  xstate: number;
  agent: number;
  /** The loop against ToolLoopAgent, and the machine alone against the XState baseline, paired by round. */
  loopchartVsAgent: number;
  machineVsXState: number;
  /** A step without a store at 10,000 messages against one at 10, paired by round. */
  historyGrowth: number;
  /** XState alone, first in the fresh process: µs per transition that copies a 10,000-element context array, without and then with a custom action (bench/xstate-action-survival.ts). */
  copyingTransition: number;
  copyingTransitionWithAction: number;
}

// First, while the process is fresh: without the action, then with it (once V8 has pretenured XState's
// sites, for the action or for a loop's runs, the transition without the action pays as well).
const copying = [copyingTransitionMicros(false), copyingTransitionMicros(false), copyingTransitionMicros(false)];
const copyingWithAction = [copyingTransitionMicros(true), copyingTransitionMicros(true), copyingTransitionMicros(true)];
const times = await measureRounds(
  8,
  { loopchart: () => loopchartLoop(), machine: () => loopchartLoop('model-free'), xstate: () => xstateToolLoop(STEPS - 1), agent: toolLoopAgent },
  { warmup: 2, runsPerBlock: 3 },
);
const history = await historyRounds(undefined);
const perStep = (runs: number[]) => median(runs) / STEPS;
const report: PretenuringReport = {
  loopchart: perStep(times.loopchart),
  machine: perStep(times.machine),
  xstate: perStep(times.xstate),
  agent: perStep(times.agent),
  loopchartVsAgent: pairedRatio(times.loopchart, times.agent),
  machineVsXState: pairedRatio(times.machine, times.xstate),
  historyGrowth: pairedRatio(history.large, history.small),
  copyingTransition: median(copying),
  copyingTransitionWithAction: median(copyingWithAction),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
