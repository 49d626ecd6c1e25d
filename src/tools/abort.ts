/**
 * Throws an `Error` naming the interrupted operation when `signal` is aborted.
 * The abort reason is kept as `cause`.
 *
 * @example
 * throwIfAborted(abortSignal, 'grep');
 */
export function throwIfAborted(signal: AbortSignal | undefined, operation: string): void {
  if (signal?.aborted) {
    throw new Error(`${operation} was aborted`, { cause: signal.reason });
  }
}
