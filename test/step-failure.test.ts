import { APICallError } from '@ai-sdk/provider';
import { StreamProviderError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../src/errors/classify-error.js';
import { classifyStreamError, failedFinish } from '../src/errors/step-failure.js';
import { canRetry } from '../src/machine/guards.js';
import { defaultConfig, type AgentContext } from '../src/machine/context.js';

describe('failedFinish', () => {
  it.each([
    ['interrupted', undefined],
    ['error', undefined],
    ['other', 'error'],
  ] as const)('a finish %s (raw %s) is a failed stream attempt', (finishReason, rawFinishReason) => {
    expect(failedFinish({ finishReason, rawFinishReason }, undefined)).toMatchObject({ kind: 'stream' });
  });

  it.each([
    ['stop', 'stop'],
    ['tool-calls', 'tool_calls'],
    ['length', 'length'],
    ['other', 'eos'],
  ] as const)('a finish %s (raw %s) is a finished step', (finishReason, rawFinishReason) => {
    expect(failedFinish({ finishReason, rawFinishReason }, undefined)).toBeUndefined();
  });

  it('carries the stream’s last error part as the reason, with its message and status', () => {
    const reason = { kind: 'invalid-request' as const, message: 'bad request', status: 400 };
    expect(failedFinish({ finishReason: 'error' }, reason)).toBe(reason);
  });
});

describe('classifyStreamError', () => {
  it('an unplaceable error after output is a stream failure; before output it stays unknown', () => {
    expect(classifyStreamError(new Error('odd'), true).kind).toBe('stream');
    expect(classifyStreamError(new Error('odd'), false).kind).toBe('unknown');
  });

  it('a provider error part with a status is classified by that status and keeps the provider’s retry verdict', () => {
    const error = new StreamProviderError({ message: 'too long', statusCode: 400, isRetryable: false });
    expect(classifyStreamError(error, true)).toEqual({ kind: 'invalid-request', message: 'too long', status: 400, retryable: false });
  });
});

describe('the provider’s verdict on retrying', () => {
  const context = (error: ReturnType<typeof classifyError>): AgentContext =>
    ({
      config: { ...defaultConfig, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 } },
      run: { attempt: 1, step: { status: 'failed', error } },
    }) as unknown as AgentContext;

  it('an APICallError with isRetryable false is not retried, whatever its status', () => {
    const quota = new APICallError({ message: 'quota', url: 'u', requestBodyValues: {}, statusCode: 429, isRetryable: false });
    const classified = classifyError(quota);
    expect(classified).toMatchObject({ kind: 'rate-limit', status: 429, retryable: false });
    expect(canRetry(context(classified))).toBe(false);
  });

  it('the same status with isRetryable true is retried', () => {
    const limited = new APICallError({ message: 'slow down', url: 'u', requestBodyValues: {}, statusCode: 429, isRetryable: true });
    expect(canRetry(context(classifyError(limited)))).toBe(true);
  });

  it('keeps at most 64 KiB of an error message, and says how much it cut: a provider can make its message its whole error body', () => {
    const error = classifyError(new Error('x'.repeat(200_000)));
    expect(error.message).toBe(`${'x'.repeat(64 * 1024)}… [${200_000 - 64 * 1024} more characters cut]`);
    expect(classifyError(new Error('short')).message).toBe('short');
  });
});
