/** The longest a Node timer can wait: a longer one fires at once (with a `TimeoutOverflowWarning`). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Checks a tool factory's numeric limit (a count or a time limit): a whole
 * number from `min` to `max`, or undefined for the default. A negative or
 * fractional count, or NaN, would be ignored or turn the limit into one of
 * nothing; a time limit over {@link MAX_TIMER_MS} would fire at once.
 *
 * @example
 * checkLimitOption('grepTool', 'maxMatches', -1);
 * // throws "Invalid grepTool options: maxMatches: expected a whole number from 1 to 9007199254740991, got -1"
 */
export function checkLimitOption(factory: string, name: string, value: number | undefined, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}): void {
  if (value === undefined || (Number.isInteger(value) && value >= min && value <= max)) return;
  throw new Error(`Invalid ${factory} options: ${name}: expected a whole number from ${min} to ${max}, got ${value}`);
}
