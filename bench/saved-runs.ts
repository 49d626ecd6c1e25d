/**
 * The table of runs saved by `npm run bench -- --save FILE`, from one or more such files: for
 * runs made in separate invocations (groups run at different times, a bench interrupted).
 *
 *   npx tsx bench/saved-runs.ts runs.jsonl [more.jsonl ...]
 */
import { readFileSync } from 'node:fs';
import { benchGroups } from './groups.js';
import { summariseRuns, type SummaryRow } from './run-summary.js';
import type { Row } from './support.js';
import { printFigures, printHeadlines } from './table.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx bench/saved-runs.ts FILE [FILE ...] (files written by npm run bench -- --save FILE)');
  process.exit(2);
}
const runsByGroup = new Map<string, Row[][]>();
for (const file of files) {
  for (const [index, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (line.trim() === '') continue;
    let saved: { group?: unknown; rows?: unknown };
    try {
      saved = JSON.parse(line) as typeof saved;
    } catch {
      throw new Error(`${file}:${index + 1} is not a JSON line of npm run bench -- --save`);
    }
    if (typeof saved.group !== 'string' || !Array.isArray(saved.rows)) throw new Error(`${file}:${index + 1} has no group and rows`);
    const runs = runsByGroup.get(saved.group) ?? [];
    runs.push(saved.rows as Row[]);
    runsByGroup.set(saved.group, runs);
  }
}
const known = benchGroups.map(({ name }) => name);
const unknown = [...runsByGroup.keys()].filter((name) => !known.includes(name));
if (unknown.length > 0) throw new Error(`saved runs of groups this bench does not have: ${unknown.join(', ')}`);
const rows: SummaryRow[] = known.flatMap((name) => summariseRuns(runsByGroup.get(name) ?? []));
printFigures(rows);
printHeadlines(rows);
