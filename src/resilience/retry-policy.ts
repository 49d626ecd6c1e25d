import type { ErrorKind } from '../core/result.js';

/** Retry settings, in `createAgent({ retry })`. */
export interface RetryConfig {
  /** Attempts per LLM call, the first included. 1 disables retries. */
  maxAttempts: number;
  /** First backoff delay; doubles with each attempt. */
  baseDelayMs: number;
  /** Upper bound of any wait, `retry-after` headers included. */
  maxDelayMs: number;
}

export const defaultRetryConfig: RetryConfig = { maxAttempts: 3, baseDelayMs: 2000, maxDelayMs: 30_000 };

const RETRYABLE: ReadonlySet<ErrorKind> = new Set(['rate-limit', 'overloaded', 'server', 'network', 'stream', 'timeout', 'invalid-output']);

/** Kinds that a later attempt may get past. `auth`, `invalid-request` and `context-overflow` would fail the same way again. */
export function isRetryableKind(kind: ErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/** How every HTTP-date form (IMF-fixdate, RFC 850, asctime) begins: the day's name. */
const HTTP_DATE_START = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i;

/**
 * The wait a provider asked for, from `retry-after-ms` (milliseconds) or
 * `retry-after` (seconds, or an HTTP date). Header names are matched without
 * regard to case. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Record<string, string | undefined> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const lookup = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]?.trim();
  const milliseconds = lookup('retry-after-ms');
  if (milliseconds !== undefined && milliseconds !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = lookup('retry-after');
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
  // Only the HTTP-date forms, which all begin with the day's name: V8's Date.parse reads "-1", "in 10" or "1.5.2" as dates in 2001, a wait of 0.
  if (!HTTP_DATE_START.test(retryAfter)) return undefined;
  // An HTTP date is GMT; asctime's form does not say so, and Date.parse would read it in the local time zone.
  const date = Date.parse(/\b(?:GMT|UTC)\b/i.test(retryAfter) ? retryAfter : `${retryAfter} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before attempt `nextAttempt` (2 for the first retry): the
 * provider's `retry-after` when it gave one, otherwise exponential backoff
 * with jitter (half fixed, half random); never more than `maxDelayMs`.
 */
export function retryDelayMs(options: {
  nextAttempt: number;
  retryAfterMs?: number;
  config: RetryConfig;
  random: () => number;
}): number {
  const { nextAttempt, retryAfterMs, config, random } = options;
  if (retryAfterMs !== undefined) return Math.min(config.maxDelayMs, Math.max(0, retryAfterMs));
  const exponential = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** Math.max(0, nextAttempt - 2));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}
