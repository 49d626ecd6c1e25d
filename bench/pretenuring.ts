/**
 * What V8's allocation-site pretenuring costs an XState agent loop. V8 allocates the objects of an
 * allocation site (an object or array literal) straight into the old generation once most of them
 * were seen surviving a young collection. Objects born old that die at once still keep what they
 * point to alive through every young collection until the next full one; in an XState loop that is
 * each step's context, and with it the history array (docs/performance.md, "What XState's actions
 * keep alive"). This group measures the same figures in fresh processes with and without
 * `--no-allocation-site-pretenuring` (a `node` flag; NODE_OPTIONS does not take it), alternating,
 * and shows them side by side. No target: the flag is the application's choice, not the library's.
 */
import { childReport } from './child-report.js';
import type { PretenuringReport } from './pretenuring-child.js';
import { amount, median, ratio, times, type Measure, type Row } from './support.js';

const OFF = '--no-allocation-site-pretenuring';

export async function pretenuringBench(): Promise<Row[]> {
  const standard: PretenuringReport[] = [];
  const off: PretenuringReport[] = [];
  // Alternating (default, off, off, default): the machine's load drifts; each side gets an early and a late process.
  for (const flags of [[], [OFF], [OFF], []]) {
    const report = await childReport<PretenuringReport>('pretenuring-child.ts', flags);
    (flags.length === 0 ? standard : off).push(report);
  }
  const of = (reports: PretenuringReport[], key: keyof PretenuringReport) => median(reports.map((report) => report[key]));
  const row = (figure: string, key: keyof PretenuringReport, show: (value: number) => string, measure: (value: number) => Measure): Row => {
    const before = of(standard, key);
    const after = of(off, key);
    const isRatio = measure(after).unit === 'x';
    return { figure, value: `${show(before)} → ${show(after)} with ${OFF}`, ratio: isRatio ? '' : `${ratio(after / before)} the default`, measure: measure(after) };
  };
  const ms = (value: number) => `${value.toFixed(3)} ms/step`;
  const us = (value: number) => `${(value * 1000).toFixed(0)} µs/step`;
  const micros = (value: number) => `${value.toFixed(1)} µs`;
  const asMs = (value: number) => amount(value, 'ms', 3);
  const msAsUs = (value: number) => amount(value * 1000, 'µs', 0);
  const asUs = (value: number) => amount(value, 'µs', 1);
  return [
    row('V8 allocation-site pretenuring off: loopchart, 50-step tool loop', 'loopchart', ms, asMs),
    row('  the machine alone (a step with no model)', 'machine', us, msAsUs),
    row('  the XState baseline', 'xstate', us, msAsUs),
    row('  ToolLoopAgent, same loop', 'agent', ms, asMs),
    row('  loopchart vs ToolLoopAgent', 'loopchartVsAgent', ratio, times),
    row('  the machine alone vs the XState baseline', 'machineVsXState', ratio, times),
    row('  a step at 10,000 messages vs at 10, no store', 'historyGrowth', ratio, times),
    row('XState alone: a transition that copies a 10,000-element context array', 'copyingTransition', micros, asUs),
    row('  the same with an entry action that does nothing', 'copyingTransitionWithAction', micros, asUs),
  ];
}
