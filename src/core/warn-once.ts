/**
 * A process warning (`LoopchartWarning`, shown on stderr by default) the first time the returned
 * function is called, and nothing after: for a seam that fails again and again (a broker that is
 * down) and an app that gave no handler of its own.
 *
 * @example
 * ```ts
 * const warn = warnOnce('LOOPCHART_EVENT_NOT_PUBLISHED');
 * warn('the message event of session chat-42 was not published: connection refused');
 * ```
 */
export function warnOnce(code: string): (message: string) => void {
  let warned = false;
  return (message) => {
    if (warned || typeof process === 'undefined' || typeof process.emitWarning !== 'function') return;
    warned = true;
    process.emitWarning(message, { type: 'LoopchartWarning', code });
  };
}
