import { z } from 'zod';

/**
 * An option that must be a function (a callback such as `onError`): anything else is refused when
 * the options are checked, not thrown later from inside the event it was meant to hear of.
 *
 * @example
 * const schema = z.strictObject({ onError: functionOption<(error: unknown) => void>().optional() });
 * parseOptions('redisEventPublisher', schema, { onError: 'log' });
 * // TypeError: Invalid redisEventPublisher options: onError: expected a function
 */
export function functionOption<F extends (...args: never[]) => unknown>(): z.ZodType<F> {
  return z.custom<F>((value) => typeof value === 'function', { message: 'expected a function' });
}
