import { APICallError } from '@ai-sdk/provider';
import { StreamProviderError } from 'ai';
import type { ErrorKind, RunError } from '../core/result.js';
import { parseRetryAfter } from '../resilience/retry-policy.js';
import { errorMessage } from '../core/error-message.js';
import { withCause } from './error-cause.js';

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
/** A 429 that no wait will fix: the account is out of credit (OpenAI's `insufficient_quota`, and its peers' wording). */
const QUOTA_EXHAUSTED = /insufficient_quota|exceeded your current quota|quota exceeded|billing|out of credits?|insufficient (?:credits?|balance|funds)/i;
const CONTEXT_OVERFLOW = /context(?:[ _-]length| window)|maximum context|too many tokens|prompt is too long|input is too long|exceeds? the (?:context|max(?:imum)? (?:input )?tokens)|context_length_exceeded/i;

/**
 * Classifies any error a step can end with into a {@link RunError}: provider
 * HTTP errors (`APICallError`) and provider error parts that carry a status
 * (`StreamProviderError`) by that status, network failures by code or
 * message, aborts. A provider's own verdict that a retry cannot succeed
 * (`isRetryable: false`) is kept as `retryable: false`, and so is a 429 that
 * says the account's quota or credit is used up (no wait fixes it).
 * Pure: no I/O, never throws.
 */
export function classifyError(error: unknown, now: number = Date.now()): RunError {
  return withCause(classify(error, now), error);
}

/** The longest error message a run keeps: a provider's message can be its whole error body, which a server may make gigabytes. */
export const MAX_ERROR_MESSAGE_CHARS = 64 * 1024;

function clippedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… [${message.length - MAX_ERROR_MESSAGE_CHARS} more characters cut]`;
}

function classify(error: unknown, now: number): RunError {
  const message = clippedMessage(errorMessage(error));
  if (isAbortError(error)) return { kind: 'aborted', message };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined && status < 400 && error.cause !== undefined) return readFailure(error, status);
    const retryAfterMs = parseRetryAfter(error.responseHeaders, now);
    const quotaExhausted = status === 429 && QUOTA_EXHAUSTED.test(`${message} ${error.responseBody ?? ''}`);
    const retryable = error.isRetryable && !quotaExhausted;
    return {
      kind: kindForStatus(status, message, error.isRetryable),
      message,
      ...(status !== undefined ? { status } : {}),
      ...(retryAfterMs !== undefined && retryable ? { retryAfterMs } : {}),
      ...(retryable ? {} : { retryable: false }),
    };
  }
  if (StreamProviderError.isInstance(error) && error.statusCode !== undefined) {
    return {
      kind: kindForStatus(error.statusCode, message, error.isRetryable),
      message,
      status: error.statusCode,
      ...(error.isRetryable ? {} : { retryable: false }),
    };
  }
  if (CONTEXT_OVERFLOW.test(message)) return { kind: 'context-overflow', message };
  if (isNetworkError(error)) return { kind: 'network', message };
  return { kind: 'unknown', message };
}

/**
 * A successful response whose body could not be read (`Failed to process successful response`): the
 * connection broke off mid-body, or the body did not decode (a cut gzip stream). What broke is in the
 * error's cause, so it goes into the message; a broken connection is a `network` error.
 */
function readFailure(error: APICallError, status: number): RunError {
  const network = isNetworkError(error.cause);
  return {
    kind: network ? 'network' : kindForStatus(status, error.message, error.isRetryable),
    message: `${error.message}: ${causeChain(error.cause)}`,
    status,
    ...(error.isRetryable || network ? {} : { retryable: false }),
  };
}

/** The messages of an error and its causes, as `terminated (other side closed)`. */
function causeChain(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const message = errorMessage(current);
    if (!messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.length > 1 ? `${messages[0]} (${messages.slice(1).join(': ')})` : (messages[0] ?? 'unknown cause');
}

function kindForStatus(status: number | undefined, message: string, isRetryable = false): ErrorKind {
  if (status === undefined) return isRetryable ? 'network' : 'unknown';
  if (status === 429) return 'rate-limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408 || status === 409 || status >= 500) return 'server';
  if ((status === 400 || status === 413) && CONTEXT_OVERFLOW.test(message)) return 'context-overflow';
  if (status >= 400) return 'invalid-request';
  return isRetryable ? 'server' : 'unknown';
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted');
}

function isNetworkError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    const message = current instanceof Error ? current.message : '';
    if (/fetch failed|socket hang up|network error|ECONNRESET|ETIMEDOUT|ECONNREFUSED/i.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
