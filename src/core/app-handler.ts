import { isThenable } from './is-thenable.js';

/**
 * An app's handler as a seam calls it: a throw of the handler (or the rejection of an async one) is swallowed, since it says nothing
 * more of the failure the seam reports and must not fail what reports it (a rejected promise
 * chain, an `'error'` event that would end the process).
 *
 * @example
 * ```ts
 * pool.on('error', tolerant(options.onError ?? (() => undefined)));
 * ```
 */
export function tolerant<ARGS extends unknown[]>(handler: (...args: ARGS) => void): (...args: ARGS) => void {
  return (...args) => {
    try {
      const result: unknown = handler(...args);
      // An async handler passes for one that returns void: its rejection would be an unhandled one, which ends the process.
      if (isThenable(result)) result.then(undefined, () => undefined);
    } catch {
      // The app's handler failing is the app's to find; the failure it was told of is told.
    }
  };
}
