import type { FinishReason } from 'ai';
import type { RunError } from '../core/result.js';
import { causeOf, withCause } from './error-cause.js';
import { classifyError } from './classify-error.js';

/**
 * How an `error` part of a model stream is classified: once the stream has
 * produced output, an error the classifier cannot place is a `stream` failure;
 * before any output it is whatever the call's error is (a model that throws
 * before streaming is not a broken stream, and is not retried as one).
 */
export function classifyStreamError(error: unknown, afterOutput: boolean): RunError {
  const classified = classifyError(error);
  return afterOutput && classified.kind === 'unknown' ? withCause({ ...classified, kind: 'stream' }, causeOf(classified)) : classified;
}

/**
 * Whether a step's `finish` part ends a failed attempt rather than a finished
 * step. It does when the provider did not really finish:
 * - finishReason `interrupted`: the stream stopped without the provider's own
 *   finish (a connection closed mid-stream, an HTTP 200 whose body is an error
 *   document rather than a stream);
 * - finishReason `error`, or a raw finish reason `error` (OpenRouter's, which
 *   `@ai-sdk/openai` maps to `other`).
 *
 * The failure is the stream's last error part when it had one (so a provider's
 * message and status survive), otherwise a `stream` error naming the finish.
 * Undefined for every other finish: the step finished.
 */
export function failedFinish(
  finish: { finishReason: FinishReason; rawFinishReason?: string | undefined },
  lastStreamError: RunError | undefined,
): RunError | undefined {
  const { finishReason, rawFinishReason } = finish;
  const failed = finishReason === 'interrupted' || finishReason === 'error' || rawFinishReason === 'error';
  if (!failed) return undefined;
  if (lastStreamError !== undefined) return lastStreamError;
  return {
    kind: 'stream',
    message:
      finishReason === 'interrupted'
        ? 'The model stream ended before the provider finished it (finishReason "interrupted").'
        : `The model stopped with an error (finishReason "${finishReason}"${rawFinishReason !== undefined ? `, raw "${rawFinishReason}"` : ''}).`,
  };
}
