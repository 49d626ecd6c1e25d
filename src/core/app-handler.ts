/**
 * An app's handler as a seam calls it: a throw of the handler is swallowed, since it says nothing
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
      handler(...args);
    } catch {
      // The app's handler failing is the app's to find; the failure it was told of is told.
    }
  };
}
