import type { HookName } from '../core/callbacks.js';
import type { AgentRuntime } from '../core/runtime.js';
import { runHook, type HookOutcome } from './run-hook.js';


/**
 * Runs one hook of the runtime under its time limit and the call's `signal`, reports its timing to
 * the trace and a failure as a `hook-error` event. Never throws.
 */
export async function callHook<T>(
  runtime: Pick<AgentRuntime, 'emit' | 'traceHook'>,
  scope: { runId: string; step: number },
  hook: HookName,
  index: number,
  run: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number | undefined,
  signal: AbortSignal,
): Promise<HookOutcome<T>> {
  const startedAt = Date.now();
  const started = performance.now();
  const outcome = await runHook(run, timeoutMs, signal);
  runtime.traceHook?.({
    ...scope,
    hook,
    index,
    startedAt,
    durationMs: performance.now() - started,
    ok: outcome.ok,
    ...(outcome.ok ? {} : { message: outcome.error }),
  });
  if (!outcome.ok) runtime.emit({ type: 'hook-error', ...scope, hook, index, message: outcome.error, timedOut: outcome.timedOut });
  return outcome;
}
