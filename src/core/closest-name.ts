/** The edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `input`, when it is close enough to be what was meant (a typo, a
 * letter too many or too few): at most a third of the input's length away, and at least 2.
 *
 * @example
 * closestName('max-step', ['max-steps', 'model']) // 'max-steps'
 * closestName('frobnicate', ['max-steps', 'model']) // undefined
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(input, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(input.length / 3)) ? best.name : undefined;
}
