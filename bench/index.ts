/**
 * `npm run bench`: every benchmark, one table, ratios measured in this process.
 * `npm run bench -- inspector telemetry`: only the benchmarks whose name has one of the words.
 *
 * A missed target is printed (the row says NO, and a summary follows) but is
 * not a failure; the process exits non-zero only when a benchmark's result is
 * wrong (a run that did not do what it was measuring) or a benchmark crashed.
 */
import os from 'node:os';
import { inspectorBench } from './inspector.js';
import { loopBench } from './loop.js';
import { memoryBench } from './memory.js';
import { parallelBench } from './parallel.js';
import { manyCallsBench } from './many-calls.js';
import { manyAgentsBench } from './many-agents.js';
import { historyGrowthBench, persistenceBench } from './persistence.js';
import { streamBench } from './stream.js';
import { scaleOutBench } from './scale-out.js';
import { telemetryBench } from './telemetry.js';
import { xstateAloneBench } from './xstate-alone.js';
import { printTable, type Row } from './support.js';

const cpus = os.cpus();
console.log(
  `loopchart benchmarks — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus[0]?.model.trim() ?? 'unknown CPU'} x${cpus.length}, ${os.platform()} ${os.release()}`,
);

const benches: Array<[string, () => Promise<Row[]>]> = [
  ['stream throughput', streamBench],
  ['loop overhead', loopBench],
  ['xstate alone', xstateAloneBench],
  ['memory', memoryBench],
  ['parallel tools', parallelBench],
  ['many tool calls in one step', manyCallsBench],
  ['many agents at once', manyAgentsBench],
  ['session append', persistenceBench],
  ['cost as the history grows', historyGrowthBench],
  ['inspector overhead', inspectorBench],
  ['telemetry overhead', telemetryBench],
  ['scale-out on PostgreSQL', scaleOutBench],
  ['session size', (await import('./session-size.js')).sessionSizeBench],
];

const words = process.argv.slice(2).map((word) => word.toLowerCase());
const chosen = words.length === 0 ? benches : benches.filter(([name]) => words.some((word) => name.includes(word)));
if (chosen.length === 0) {
  console.error(`no benchmark's name has ${words.join(' or ')}; the benchmarks: ${benches.map(([name]) => name).join(', ')}`);
  process.exit(2);
}

const rows: Row[] = [];
const failures: string[] = [];
for (const [name, bench] of chosen) {
  (globalThis as { gc?: () => void }).gc?.();
  try {
    rows.push(...(await bench()));
  } catch (error) {
    failures.push(`${name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    rows.push({ figure: `${name}: FAILED (see below)`, value: '' });
  }
}

printTable(rows);
const missed = rows.filter((row) => row.ok === false);
if (missed.length > 0) {
  console.log(`\n${missed.length} target(s) MISSED (see docs/performance.md for where the time goes):`);
  for (const row of missed) console.log(`  - ${row.figure}: ${row.ratio || row.value} (target ${row.target})`);
} else {
  console.log('\nEvery target met.');
}
if (failures.length > 0) {
  console.log(`\n${failures.length} benchmark(s) went wrong:`);
  for (const failure of failures) console.log(`  - ${failure}`);
  process.exitCode = 1;
}
