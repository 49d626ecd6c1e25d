import { tolerant } from './app-handler.js';

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

/**
 * How a seam tells of a failure the app may want to hear of: to the app's `handler` when it gave
 * one (a throw of the handler is swallowed: it says nothing more of the failure, and must not fail
 * what reports it), else a process warning the first time ({@link warnOnce}), in the words
 * `warning` gives.
 *
 * @example
 * ```ts
 * const report = reportToAppOrWarnOnce(options.onControlError, 'LOOPCHART_CONTROL_NOT_PUBLISHED', (error: unknown) => `not published: ${String(error)}; pass onControlError to hear of each`);
 * report(new Error('connection terminated'));
 * ```
 */
export function reportToAppOrWarnOnce<ARGS extends unknown[]>(handler: ((...args: ARGS) => void) | undefined, code: string, warning: (...args: ARGS) => string): (...args: ARGS) => void {
  if (handler) return tolerant(handler);
  const warn = warnOnce(code);
  return (...args) => warn(warning(...args));
}
