/**
 * The signals that stop `loopchart run` cleanly: Ctrl+C, the SIGTERM of `timeout`, `docker stop`,
 * `kill` or a CI cancel, and the SIGHUP of a terminal that was closed.
 */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Why a run stops before its end: a stop signal, or `SIGPIPE` when its stdout or stderr lost its reader (EPIPE, `| head -1`). */
export type StopReason = StopSignal | 'SIGPIPE';

/** The part of `process` that delivers signals. */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
}

/**
 * Stop-signal handling for a run: the first SIGINT, SIGTERM or SIGHUP calls `first`
 * with it (abort the run and let it end cleanly: the MCP servers stopped, the
 * temporary workspace removed), every later one calls `again` (exit at once).
 * Returns a function that removes the handlers.
 */
export function onInterrupt(source: SignalSource, handlers: { first: (signal: StopSignal) => void; again: (signal: StopSignal) => void }): () => void {
  let count = 0;
  const listeners = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const listener = () => {
      count++;
      if (count === 1) handlers.first(signal);
      else handlers.again(signal);
    };
    source.on(signal, listener);
    return () => void source.off(signal, listener);
  });
  return () => listeners.forEach((stop) => stop());
}
