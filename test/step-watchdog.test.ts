import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StepWatchdog } from '../src/actors/step-watchdog.js';

describe('StepWatchdog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const watch = (limits: ConstructorParameters<typeof StepWatchdog>[0]) => {
    const timeouts: string[] = [];
    const watchdog = new StepWatchdog(limits, (message) => timeouts.push(message), () => Date.now());
    return { watchdog, timeouts };
  };

  it('fires when the first chunk does not come in time', () => {
    const { timeouts } = watch({ firstChunkMs: 100 });
    vi.advanceTimersByTime(99);
    expect(timeouts).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(timeouts).toEqual(['No first chunk within 100 ms (timeout.firstChunkMs).']);
  });

  it('measures chunkMs from the last chunk, and only once chunks flow', () => {
    const { watchdog, timeouts } = watch({ chunkMs: 50 });
    vi.advanceTimersByTime(1_000);
    expect(timeouts).toEqual([]);
    watchdog.chunk();
    vi.advanceTimersByTime(40);
    watchdog.chunk();
    vi.advanceTimersByTime(40);
    expect(timeouts).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(timeouts).toEqual(['No chunk for 50 ms (timeout.chunkMs).']);
  });

  it('ends a call that streams steadily but too long (stepMs), once', () => {
    const { watchdog, timeouts } = watch({ chunkMs: 50, stepMs: 200 });
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(30);
      watchdog.chunk();
    }
    expect(timeouts).toEqual(['The LLM call took longer than 200 ms (timeout.stepMs).']);
  });

  it('never fires after stop', () => {
    const { watchdog, timeouts } = watch({ firstChunkMs: 10 });
    watchdog.stop();
    vi.advanceTimersByTime(100);
    expect(timeouts).toEqual([]);
  });
});
