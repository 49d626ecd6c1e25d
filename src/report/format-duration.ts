/**
 * A duration in milliseconds for people: whole milliseconds below a second,
 * seconds with two or one decimals below a minute, then minutes and seconds.
 *
 * @example
 * formatDuration(0.4)    // '0 ms'
 * formatDuration(340)    // '340 ms'
 * formatDuration(1234)   // '1.23 s'
 * formatDuration(12_345) // '12.3 s'
 * formatDuration(125_000) // '2 min 5 s'
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/**
 * An offset from the run's start: `+` and the duration.
 *
 * @example
 * formatOffset(1500) // '+1.50 s'
 */
export function formatOffset(ms: number): string {
  return `+${formatDuration(ms)}`;
}
