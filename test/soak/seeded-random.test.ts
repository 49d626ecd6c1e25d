import { describe, expect, it } from 'vitest';
import { parseSeed, seededRandom } from './seeded-random.js';

describe('seededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const take = (seed: number) => Array.from({ length: 20 }, seededRandom(seed).next);
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
  });

  it('is mulberry32: the first numbers of seed 1 are known', () => {
    const random = seededRandom(1);
    expect([random.next(), random.next()].map((value) => value.toFixed(8))).toEqual(['0.62707394', '0.00273572']);
  });

  it('keeps int(), between() and pick() within their bounds, reaching both ends of int()', () => {
    const random = seededRandom(7);
    const ints = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const value = random.int(2, 5);
      ints.add(value);
      const real = random.between(0.5, 4);
      expect(real).toBeGreaterThanOrEqual(0.5);
      expect(real).toBeLessThan(4);
      expect(['a', 'b']).toContain(random.pick(['a', 'b']));
    }
    expect([...ints].sort()).toEqual([2, 3, 4, 5]);
  });

  it('never picks a key of weight 0', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 1_000; i++) expect(random.weighted({ never: 0, often: 3, rarely: 1 })).not.toBe('never');
  });

  it('refuses seeds that are not integers in [0, 2^32) and impossible ranges', () => {
    expect(() => seededRandom(-1)).toThrow(RangeError);
    expect(() => seededRandom(1.5)).toThrow(RangeError);
    expect(() => parseSeed('abc')).toThrow(/a seed is an integer/);
    expect(() => parseSeed('4294967296')).toThrow(RangeError);
    expect(parseSeed('4294967295')).toBe(4294967295);
    expect(() => seededRandom(1).int(3, 2)).toThrow(RangeError);
    expect(() => seededRandom(1).pick([])).toThrow(RangeError);
    expect(() => seededRandom(1).weighted({ a: 0 })).toThrow(RangeError);
  });
});
