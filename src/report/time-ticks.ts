/**
 * Round tick positions for a time axis from 0 to `totalMs`: steps of 1, 2 or
 * 5 times a power of ten, about `count` of them, always starting at 0.
 *
 * @example
 * timeTicks(1000)  // [0, 200, 400, 600, 800, 1000]
 * timeTicks(340)   // [0, 100, 200, 300]
 * timeTicks(0)     // [0]
 */
export function timeTicks(totalMs: number, count = 6): number[] {
  if (!(totalMs > 0) || !Number.isFinite(totalMs)) return [0];
  const rough = totalMs / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => totalMs / candidate <= count) ?? 10 * power;
  const ticks: number[] = [];
  for (let tick = 0; tick <= totalMs + step * 1e-9; tick += step) ticks.push(Math.round(tick * 1e6) / 1e6);
  return ticks;
}
