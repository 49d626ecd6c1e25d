import { describe, expect, it } from 'vitest';
import { defaultRetryConfig, isRetryableKind, parseRetryAfter, retryDelayMs } from '../src/resilience/retry-policy.js';
import { runHook } from '../src/resilience/run-hook.js';
import { truncateMiddle, truncateToolOutput } from '../src/resilience/truncate-output.js';

describe('retry policy', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it('reads retry-after-ms, retry-after seconds and retry-after HTTP dates, in any case', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(parseRetryAfter({ 'Retry-After': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after-ms': '120', 'retry-after': '9' }, now)).toBe(120);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads only HTTP dates as dates: garbage that Date.parse takes for a date is no wait at all, and the backoff applies', () => {
    expect(parseRetryAfter({ 'retry-after': 'Sunday, 22-Nov-26 10:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': 'Sun Nov 22 10:00:09 2026' }, now)).toBe(9000);
    for (const garbage of ['-1', 'in 10', '1.5.2', 'abc 12', '2026-11-22T10:00:05Z']) expect(parseRetryAfter({ 'retry-after': garbage }, now), garbage).toBeUndefined();
  });

  it('honours the provider’s wait up to maxDelayMs', () => {
    const config = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(retryDelayMs({ nextAttempt: 2, retryAfterMs: 1234, config, random: () => 0.5 })).toBe(1234);
    expect(retryDelayMs({ nextAttempt: 2, retryAfterMs: 60_000, config, random: () => 0.5 })).toBe(5000);
  });

  it('backs off exponentially with jitter between half and the full delay, capped', () => {
    const config = { maxAttempts: 9, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(retryDelayMs({ nextAttempt: 2, config, random: () => 0 })).toBe(500);
    expect(retryDelayMs({ nextAttempt: 2, config, random: () => 1 })).toBe(1000);
    expect(retryDelayMs({ nextAttempt: 3, config, random: () => 1 })).toBe(2000);
    expect(retryDelayMs({ nextAttempt: 4, config, random: () => 1 })).toBe(4000);
    expect(retryDelayMs({ nextAttempt: 8, config, random: () => 1 })).toBe(5000);
  });

  it('retries only kinds a later attempt may get past', () => {
    for (const kind of ['rate-limit', 'overloaded', 'server', 'network', 'stream', 'timeout'] as const) expect(isRetryableKind(kind)).toBe(true);
    for (const kind of ['auth', 'invalid-request', 'context-overflow', 'invalid-response', 'aborted', 'unknown'] as const) expect(isRetryableKind(kind)).toBe(false);
    expect(defaultRetryConfig).toEqual({ maxAttempts: 3, baseDelayMs: 2000, maxDelayMs: 30_000 });
  });
});

describe('truncateMiddle', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `l${i + 1}`).join('\n');

  it('leaves text within the limits untouched', () => {
    expect(truncateMiddle(lines(10), { maxLines: 10, maxBytes: 1000 })).toBe(lines(10));
  });

  it('keeps head and tail and says how much was cut and where', () => {
    const cut = truncateMiddle(lines(100), { maxLines: 10, maxBytes: 10_000 });
    expect(cut.split('\n')).toEqual(['l1', 'l2', 'l3', 'l4', 'l5', expect.stringMatching(/^\[… 90 lines \(.*\) cut here \(lines 6-95\) of 100 lines/), 'l96', 'l97', 'l98', 'l99', 'l100']);
  });

  it('cuts by bytes as well as lines', () => {
    const cut = truncateMiddle('x'.repeat(10_000), { maxLines: 100, maxBytes: 100 });
    expect(cut.length).toBeLessThan(300);
    expect(cut).toContain('cut here (within a long line)');
  });

  it('turns an oversized JSON output into cut JSON text and keeps the error flavour', () => {
    // Measured as sent (unindented): about 4,500 bytes on one line, over a 1,000-byte limit.
    const value = Array.from({ length: 500 }, (_, i) => ({ i }));
    const json = truncateToolOutput({ type: 'json', value }, { maxLines: 20, maxBytes: 1_000 });
    expect(json.type).toBe('text');
    const error = truncateToolOutput({ type: 'error-json', value }, { maxLines: 20, maxBytes: 1_000 });
    expect(error.type).toBe('error-text');
    const small = { type: 'json' as const, value: { ok: true } };
    expect(truncateToolOutput(small, { maxLines: 20, maxBytes: 10_000 })).toBe(small);
  });
});

describe('runHook', () => {
  const running = new AbortController().signal;

  it('returns the value, or the failure as data', async () => {
    expect(await runHook(() => 42, 10, running)).toEqual({ ok: true, value: 42 });
    expect(await runHook(async () => 'later', 50, running)).toEqual({ ok: true, value: 'later' });
    expect(
      await runHook(
        () => {
          throw new Error('boom');
        },
        10,
        running,
      ),
    ).toEqual({ ok: false, error: 'boom', timedOut: false });
    expect(await runHook(() => new Promise(() => {}), 10, running)).toEqual({ ok: false, error: 'the hook did not settle within 10 ms', timedOut: true });
  });

  it('aborts the hook’s signal when its time limit passes, so the work it started can stop', async () => {
    let seen: AbortSignal | undefined;
    await runHook((signal) => ((seen = signal), new Promise(() => {})), 10, running);
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).name).toBe('TimeoutError');
  });

  it('aborts the hook’s signal when the call or run it belongs to stops', async () => {
    const run = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = runHook(
      (signal) =>
        new Promise<string>((resolve) => {
          seen = signal;
          signal.addEventListener('abort', () => resolve('stopped'));
        }),
      undefined,
      run.signal,
    );
    run.abort(new Error('user pressed Ctrl-C'));
    expect(await pending).toEqual({ ok: true, value: 'stopped' });
    expect(seen?.aborted).toBe(true);
  });
});
