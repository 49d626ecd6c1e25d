/**
 * `npm run bench`: every benchmark group, each run five times in fresh processes, one table.
 * `npm run bench -- --runs 1`: one run of each (quicker, noisier).
 * `npm run bench -- inspector telemetry`: only the groups whose name has one of the words.
 * `npm run bench -- --save runs.jsonl`: every group's run also appended to runs.jsonl as it ends.
 *
 * Every ratio is measured within one process, its contestants moments apart; a row then shows the
 * run with the median of its measure over the runs, and the spread. A target is judged on that
 * median. A missed target is printed (the row says MISSED, and a summary follows) but is not a
 * failure; the process exits non-zero only when a benchmark's result is wrong (a run that did not
 * do what it was measuring) or a benchmark crashed.
 */
import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseBenchArgs } from './bench-args.js';
import { chooseGroups, benchGroups, type BenchGroup } from './groups.js';
import { summariseRuns, type SummaryRow } from './run-summary.js';
import type { Row } from './support.js';
import { printFigures, printHeadlines } from './table.js';

const run = promisify(execFile);

let args;
try {
  args = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
const chosen = chooseGroups(args.words);
if (chosen.length === 0) {
  console.error(`no benchmark group's name has ${args.words.join(' or ')}; the groups: ${benchGroups.map(({ name }) => name).join(', ')}`);
  process.exit(2);
}

const cpus = os.cpus();
console.log(
  `loopchart benchmarks — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus[0]?.model.trim() ?? 'unknown CPU'} x${cpus.length}, ${os.platform()} ${os.release()}; ` +
    `${args.runs} run${args.runs === 1 ? '' : 's'} of each group, each in a fresh process; load average at the start ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}`,
);

/** One run of a group in a fresh `node --expose-gc` process (loading src/ as built, as this process does: bench/as-built.mjs). */
async function runGroup(group: BenchGroup): Promise<Row[]> {
  const child = fileURLToPath(new URL('./group-child.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', import.meta.resolve('tsx'), child, group.name], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    maxBuffer: 16 << 20,
  });
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { rows?: Row[]; error?: string };
  if (report.error !== undefined) throw new Error(report.error);
  return report.rows!;
}

const runsByGroup = new Map<BenchGroup, Row[][]>(chosen.map((group) => [group, []]));
const failures: string[] = [];
// Run by run rather than group by group: a slow stretch of the shared machine then falls on every group's runs alike.
for (let index = 1; index <= args.runs; index++) {
  for (const group of chosen) {
    const started = performance.now();
    try {
      const rows = await runGroup(group);
      runsByGroup.get(group)!.push(rows);
      if (args.save !== undefined) appendFileSync(args.save, `${JSON.stringify({ group: group.name, run: index, rows })}\n`);
      console.error(`run ${index}/${args.runs}: ${group.name} (${((performance.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg()[0]!.toFixed(1)})`);
    } catch (error) {
      failures.push(`${group.name}, run ${index}: ${error instanceof Error ? error.message : String(error)}`);
      console.error(`run ${index}/${args.runs}: ${group.name} FAILED`);
    }
  }
}

const rows: SummaryRow[] = [];
for (const [group, runs] of runsByGroup) {
  if (runs.length === 0) rows.push({ figure: `${group.name}: FAILED (see below)`, value: '', runs: 0 });
  else rows.push(...summariseRuns(runs));
}

console.log();
printFigures(rows);
printHeadlines(rows);
const missed = rows.filter((row) => row.met === false);
if (missed.length > 0) {
  console.log(`\n${missed.length} target(s) MISSED on the median (see docs/performance.md for where the time goes):`);
  for (const row of missed) console.log(`  - ${row.figure}: ${row.ratio || row.value} (target ${row.target})`);
} else {
  console.log('\nEvery target met on the median.');
}
if (failures.length > 0) {
  console.log(`\n${failures.length} benchmark run(s) went wrong:`);
  for (const failure of failures) console.log(`  - ${failure}`);
  process.exitCode = 1;
}
