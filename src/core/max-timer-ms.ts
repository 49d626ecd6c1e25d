import { z } from 'zod';

/**
 * The longest a Node timer can wait, 2^31-1 ms (about 24.8 days): one given more fires at once
 * (with a `TimeoutOverflowWarning`), so a time limit past it must be refused, not taken.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A time limit in ms that a Node timer can wait: a whole number from 1 to {@link MAX_TIMER_MS}; a longer one would fire at once. */
export const timerMsSchema = z.number().int().positive().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest a timer can wait`);
