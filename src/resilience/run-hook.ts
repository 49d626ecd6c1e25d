import { errorMessage } from '../errors/error-message.js';

export type HookOutcome<T> = { ok: true; value: T } | { ok: false; error: string; timedOut: boolean };

/**
 * Runs one hook under a time limit. Never throws: a throw or a timeout comes
 * back as `{ ok: false }` so the caller decides whether to fail open or closed.
 */
export async function runHook<T>(hook: () => T | Promise<T>, timeoutMs: number | undefined): Promise<HookOutcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const value = hook();
    if (timeoutMs === undefined || !(value instanceof Promise)) return { ok: true, value: await value };
    const timeout = new Promise<HookOutcome<T>>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: `the hook did not settle within ${timeoutMs} ms`, timedOut: true }), timeoutMs);
    });
    return await Promise.race([value.then((resolved): HookOutcome<T> => ({ ok: true, value: resolved })), timeout]);
  } catch (error) {
    return { ok: false, error: errorMessage(error), timedOut: false };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
