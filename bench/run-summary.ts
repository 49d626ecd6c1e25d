/**
 * The rows of several runs of one benchmark group (each in a fresh process) made into one: a row
 * shows the run whose measure is the median, the spread of the measure over the runs, and whether
 * the median meets the row's target.
 *
 * @example
 * ```ts
 * const rows = summariseRuns([firstRunRows, secondRunRows, thirdRunRows]);
 * rows[0].met; // the median of the three measures against the row's max
 * ```
 */
import { formatMeasure, isMet, median, type Row } from './support.js';

export interface SummaryRow extends Row {
  /** How many runs measured this row. */
  runs: number;
  /** The measure's lowest and highest value over the runs, when there are several. */
  spread?: string;
  /** The median measure over the runs (for an even count, the mean of the middle two). */
  medianMeasure?: number;
  met?: boolean;
}

/** One row per figure, in the order the runs first give them; runs are matched by `figure`. */
export function summariseRuns(runs: readonly (readonly Row[])[]): SummaryRow[] {
  const byFigure = new Map<string, Row[]>();
  for (const rows of runs) {
    for (const row of rows) {
      const same = byFigure.get(row.figure);
      if (same) same.push(row);
      else byFigure.set(row.figure, [row]);
    }
  }
  return [...byFigure.values()].map(summariseRow);
}

function summariseRow(rows: Row[]): SummaryRow {
  const measured = rows.filter((row) => row.measure !== undefined);
  if (measured.length === 0) return { ...rows.at(-1)!, runs: rows.length };
  const sorted = [...measured].sort((a, b) => a.measure!.n - b.measure!.n);
  const middle = median(sorted.map((row) => row.measure!.n));
  // The run shown is the one nearest the median (the median itself for an odd count).
  const shown = sorted.reduce((best, row) => (Math.abs(row.measure!.n - middle) < Math.abs(best.measure!.n - middle) ? row : best));
  const low = sorted[0]!.measure!;
  const high = sorted.at(-1)!.measure!;
  const medianMeasure = { ...shown.measure!, n: middle };
  const met = isMet({ measure: medianMeasure, max: shown.max });
  return {
    ...shown,
    runs: measured.length,
    medianMeasure: middle,
    ...(measured.length > 1 ? { spread: `${formatMeasure(low)} – ${formatMeasure(high)}` } : {}),
    ...(met !== undefined ? { met } : {}),
  };
}
