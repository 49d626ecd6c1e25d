/** The part of `process` that delivers signals. */
export interface SignalSource {
  on(signal: 'SIGINT', listener: () => void): unknown;
  off(signal: 'SIGINT', listener: () => void): unknown;
}

/**
 * Ctrl+C handling for a run: the first SIGINT calls `first` (abort the run and
 * let it end cleanly), every later one calls `again` (exit at once). Returns a
 * function that removes the handler.
 */
export function onInterrupt(source: SignalSource, handlers: { first: () => void; again: () => void }): () => void {
  let count = 0;
  const listener = () => {
    count++;
    if (count === 1) handlers.first();
    else handlers.again();
  };
  source.on('SIGINT', listener);
  return () => void source.off('SIGINT', listener);
}
