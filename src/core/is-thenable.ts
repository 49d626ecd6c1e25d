/**
 * Whether an app's callback returned a promise (or any thenable): a `void` callback type accepts an
 * `async` one, whose rejection the caller must handle or it ends the process. Pure.
 *
 * @example
 * ```ts
 * isThenable(Promise.resolve()); // true
 * isThenable(undefined);         // false
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
