import { MAX_TIMER_MS } from '../core/max-timer-ms.js';
import { z } from 'zod';

/** A tool factory's count limit (`maxMatches`, `maxEntries`): a negative or fractional count, or NaN, would be ignored or limit to nothing. */
export const countLimitSchema = z.number().int().min(1);

/** A time limit in ms that a Node timer can wait: a longer one would fire at once. */
export const timerMsSchema = z.number().int().positive().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest a timer can wait`);

/**
 * A tool factory's options checked against `schema`, refused with an error that names the factory
 * and each field that does not fit (zod's issue for it).
 *
 * @example
 * parseToolFactoryOptions('grepTool', z.object({ maxMatches: countLimitSchema.optional() }), { maxMatches: -1 });
 * // throws "Invalid grepTool options: maxMatches: Too small: expected number to be >=1"
 */
export function parseToolFactoryOptions<T>(factory: string, schema: z.ZodType<T>, options: unknown): T {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  throw new Error(`Invalid ${factory} options: ${problems.join('; ')}`);
}
