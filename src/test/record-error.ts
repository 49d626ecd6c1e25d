import { APICallError } from '@ai-sdk/provider';
import { errorMessage } from '../core/error-message.js';
import type { ScriptedError } from './script-schema.js';

/**
 * A provider failure as a script's `error` (without `after`): an `APICallError`
 * with an HTTP status keeps its status, message, headers and body; anything
 * else becomes a network failure (no status). For a network failure the
 * message is that of the error's `cause` when it has one, because the scripted
 * model replays it as `TypeError('fetch failed' | 'terminated', { cause })`
 * with the scripted message on the cause, as Node's fetch reports a reset.
 */
export function scriptedErrorFor(error: unknown): ScriptedError {
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    return {
      status: error.statusCode,
      message: error.message,
      ...(error.responseHeaders !== undefined && { headers: { ...error.responseHeaders } }),
      ...(error.responseBody !== undefined && { body: error.responseBody }),
    };
  }
  const cause = error instanceof Error ? error.cause : undefined;
  return { message: errorMessage(cause instanceof Error ? cause : error) };
}

/** True for the failure of a call that was aborted: its signal fired, or it failed with an `AbortError`/`TimeoutError`. */
export function isAbortFailure(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const name = error instanceof Error ? error.name : undefined;
  return name === 'AbortError' || name === 'TimeoutError';
}
