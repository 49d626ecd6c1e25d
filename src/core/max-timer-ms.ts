/**
 * The longest a Node timer can wait, 2^31-1 ms (about 24.8 days): one given more fires at once
 * (with a `TimeoutOverflowWarning`), so a time limit past it must be refused, not taken.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
