/**
 * The tables `npm run bench` prints: every figure (its median run, the spread over the runs, its
 * target and whether the median meets it), then the headline targets alone.
 */
import type { SummaryRow } from './run-summary.js';
import { formatMeasure } from './support.js';

function printMarkdown(headers: readonly string[], cells: readonly (readonly string[])[]): void {
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((cell) => cell[i]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((value, i) => value.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cell of cells) console.log(line(cell));
}

const verdict = (row: SummaryRow) => (row.met === undefined ? '' : row.met ? 'met' : 'MISSED');

/** Every figure of every group. */
export function printFigures(rows: readonly SummaryRow[]): void {
  printMarkdown(
    ['figure', 'value (median run)', 'ratio (median run)', 'spread over the runs', 'runs', 'target', 'median'],
    rows.map((row) => [row.figure, row.value, row.ratio ?? '', row.spread ?? '', row.runs > 0 ? String(row.runs) : '', row.target ?? '', verdict(row)]),
  );
}

/** The rows that carry a headline: each target with its median over the runs, the spread and met or missed. */
export function printHeadlines(rows: readonly SummaryRow[]): void {
  const headlines = rows.filter((row) => row.headline !== undefined && row.measure !== undefined);
  if (headlines.length === 0) return;
  console.log('\nTargets (docs/performance.md says where each comes from), each judged on its median over the runs, each run a fresh process:\n');
  printMarkdown(
    ['target', 'median', 'spread', 'runs', 'target', ''],
    headlines.map((row) => [
      row.headline!,
      formatMeasure({ ...row.measure!, n: row.medianMeasure ?? row.measure!.n }),
      row.spread ?? '',
      String(row.runs),
      row.target ?? '',
      verdict(row),
    ]),
  );
}
