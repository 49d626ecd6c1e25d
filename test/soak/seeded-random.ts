/**
 * A small seeded source of random numbers (mulberry32): the same seed gives the same sequence on
 * every machine and Node version, so a soak's schedule replays from its seed alone.
 *
 * @example
 * const random = seededRandom(42);
 * random.int(1, 3); // the same number for seed 42, every time
 */
export interface SeededRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** A number in [min, max). */
  between(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One of the items. */
  pick<T>(items: readonly T[]): T;
  /** One of the keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
}

/** A seed is an integer in [0, 2^32). */
export function parseSeed(text: string): number {
  const seed = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(seed) || seed >= 2 ** 32) {
    throw new RangeError(`a seed is an integer from 0 to ${2 ** 32 - 1}, not "${text}"`);
  }
  return seed;
}

export function seededRandom(seed: number): SeededRandom {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) throw new RangeError(`a seed is an integer from 0 to ${2 ** 32 - 1}, not ${seed}`);
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) throw new RangeError(`int(${min}, ${max}): need integers with min <= max`);
    return min + Math.floor(next() * (max - min + 1));
  };
  return {
    next,
    int,
    between: (min, max) => min + next() * (max - min),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick() from no items');
      return items[int(0, items.length - 1)]!;
    },
    weighted: (weights) => {
      const entries = Object.entries(weights) as Array<[keyof typeof weights, number]>;
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      if (!(total > 0) || entries.some(([, weight]) => weight < 0)) throw new RangeError('weighted() needs weights >= 0 with a positive sum');
      let left = next() * total;
      for (const [key, weight] of entries) {
        left -= weight;
        if (left < 0) return key;
      }
      return entries.findLast(([, weight]) => weight > 0)![0];
    },
  };
}
