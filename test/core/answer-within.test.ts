import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerWithin } from '../../src/core/answer-within.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('answerWithin', () => {
  it('settles with the answer that comes in time, and leaves no timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await expect(answerWithin(Promise.resolve(42), 1_000, () => new Error('late'))).resolves.toBe(42);
    await expect(answerWithin(Promise.reject(new Error('refused')), 1_000, () => new Error('late'))).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the late error once the time has passed without an answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = answerWithin(new Promise<never>(() => undefined), 1_000, () => new Error('no answer within 1000 ms'));
    const settled = vi.fn();
    answer.catch(settled);
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).rejects.toThrow('no answer within 1000 ms');
  });

  it('reads what has already arrived before it calls the answer late (a process resumed after a pause)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answer: (value: number) => void = () => undefined;
    const result = answerWithin(new Promise<number>((resolve) => (answer = resolve)), 1_000, () => new Error('late'));
    vi.advanceTimersByTime(1_000); // the time is up; the answer was received in the same turn of the event loop
    answer(7);
    await expect(result).resolves.toBe(7);
  });

  it('ignores what the call settles with after the time has passed, a refusal included (no unhandled rejection)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let refuse: (error: Error) => void = () => undefined;
    const answer = expect(answerWithin(new Promise<never>((_, reject) => (refuse = reject)), 10, () => new Error('late'))).rejects.toThrow('late');
    await vi.advanceTimersByTimeAsync(10);
    await answer;
    vi.useRealTimers();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      refuse(new Error('too late to matter'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
