import { errorMessage } from '../core/error-message.js';

export type HookOutcome<T> = { ok: true; value: T } | { ok: false; error: string; timedOut: boolean };

/**
 * Runs one hook under a time limit, with a signal that is aborted when `parent` is (the call or
 * the run stopped) or when the limit passes. Never throws: a throw or a timeout comes back as
 * `{ ok: false }` so the caller decides whether to fail open or closed.
 */
export async function runHook<T>(
  hook: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number | undefined,
  parent: AbortSignal,
): Promise<HookOutcome<T>> {
  const controller = new AbortController();
  const abort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', abort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const value = hook(controller.signal);
    if (timeoutMs === undefined || !(value instanceof Promise)) return { ok: true, value: await value };
    const timeout = new Promise<HookOutcome<T>>((resolve) => {
      timer = setTimeout(() => {
        const error = `the hook did not settle within ${timeoutMs} ms`;
        controller.abort(new DOMException(error, 'TimeoutError'));
        resolve({ ok: false, error, timedOut: true });
      }, timeoutMs);
    });
    return await Promise.race([value.then((resolved): HookOutcome<T> => ({ ok: true, value: resolved })), timeout]);
  } catch (error) {
    return { ok: false, error: errorMessage(error), timedOut: false };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    parent.removeEventListener('abort', abort);
  }
}
