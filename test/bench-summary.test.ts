import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../bench/bench-args.js';
import { summariseRuns } from '../bench/run-summary.js';
import { times, type Row } from '../bench/support.js';

const loopRow = (n: number, extra: Partial<Row> = {}): Row => ({ figure: 'loop', value: `${n} ms`, ratio: `${n}x`, measure: times(n), target: '<= 0.5x', max: 0.5, ...extra });

describe('summariseRuns', () => {
  it('shows the run with the median measure, its spread, and judges the target on the median', () => {
    const [row] = summariseRuns([[loopRow(0.6)], [loopRow(0.4)], [loopRow(0.45)], [loopRow(0.9)], [loopRow(0.3)]]);
    expect(row).toMatchObject({ ratio: '0.45x', medianMeasure: 0.45, spread: '0.30x – 0.90x', runs: 5, met: true });
  });

  it('misses a target whose median is over it, whatever the best run', () => {
    const [row] = summariseRuns([[loopRow(0.2)], [loopRow(0.6)], [loopRow(0.7)]]);
    expect(row).toMatchObject({ medianMeasure: 0.6, met: false });
  });

  it('takes the mean of the middle two for an even count of runs', () => {
    const [row] = summariseRuns([[loopRow(0.4)], [loopRow(0.5)], [loopRow(0.7)], [loopRow(0.1)]]);
    expect(row!.medianMeasure).toBeCloseTo(0.45);
    expect(row!.met).toBe(true);
  });

  it('matches rows by figure, keeping the order in which they first appear', () => {
    const a = (n: number): Row => ({ figure: 'a', value: '', measure: times(n) });
    const b = (n: number): Row => ({ figure: 'b', value: '', measure: times(n) });
    const rows = summariseRuns([[a(1), b(2)], [b(4), a(3)], [a(5)]]);
    expect(rows.map((row) => [row.figure, row.runs, row.medianMeasure])).toEqual([
      ['a', 3, 3],
      ['b', 2, 3],
    ]);
  });

  it('keeps a row without a measure as its last run gave it, with no verdict', () => {
    const [row] = summariseRuns([[{ figure: 'skipped', value: 'first' }], [{ figure: 'skipped', value: 'last' }]]);
    expect(row).toMatchObject({ value: 'last', runs: 2 });
    expect(row!.met).toBeUndefined();
    expect(row!.spread).toBeUndefined();
  });
});

describe('parseBenchArgs', () => {
  it('runs each group five times by default, and takes words that choose groups', () => {
    expect(parseBenchArgs(['loop', 'history'])).toEqual({ runs: 5, words: ['loop', 'history'] });
  });

  it('takes --runs N and --runs=N', () => {
    expect(parseBenchArgs(['--runs', '1', 'loop'])).toEqual({ runs: 1, words: ['loop'] });
    expect(parseBenchArgs(['--runs=3'])).toEqual({ runs: 3, words: [] });
  });

  it('takes --save FILE', () => {
    expect(parseBenchArgs(['--save', 'runs.jsonl', 'loop'])).toEqual({ runs: 5, words: ['loop'], save: 'runs.jsonl' });
    expect(() => parseBenchArgs(['--save'])).toThrow(/--save takes the file/);
  });

  it('refuses a run count that is not a positive whole number, and unknown options', () => {
    expect(() => parseBenchArgs(['--runs', '0'])).toThrow(/positive whole number/);
    expect(() => parseBenchArgs(['--runs', 'five'])).toThrow(/positive whole number/);
    expect(() => parseBenchArgs(['--runs'])).toThrow(/positive whole number/);
    expect(() => parseBenchArgs(['--fast'])).toThrow(/unknown option --fast/);
  });
});
