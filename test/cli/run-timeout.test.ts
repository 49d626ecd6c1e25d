import { describe, expect, it } from 'vitest';
import { CLI_STREAM_SILENCE_MS, mergeTimeouts, runTimeout } from '../../src/cli/run-timeout.js';

describe("loopchart run's time limits", () => {
  it('--timeout replaces the config’s totalMs and keeps its other limits; a number in the config is the whole run', () => {
    expect(mergeTimeouts({ chunkMs: 30_000, totalMs: 600_000 }, 60_000)).toEqual({ chunkMs: 30_000, totalMs: 60_000 });
    expect(mergeTimeouts(120_000, undefined)).toEqual({ totalMs: 120_000 });
    expect(mergeTimeouts(120_000, 5_000)).toEqual({ totalMs: 5_000 });
    expect(mergeTimeouts(undefined, 5_000)).toEqual({ totalMs: 5_000 });
    expect(mergeTimeouts(undefined, undefined)).toBeUndefined();
  });

  it('bounds a real model’s silent stream unless told otherwise, and adds nothing to a run on the scripted model', () => {
    expect(runTimeout(undefined, { realModel: true })).toEqual({ firstChunkMs: CLI_STREAM_SILENCE_MS, chunkMs: CLI_STREAM_SILENCE_MS });
    expect(runTimeout({ firstChunkMs: 30_000, totalMs: 60_000 }, { realModel: true })).toEqual({ firstChunkMs: 30_000, chunkMs: CLI_STREAM_SILENCE_MS, totalMs: 60_000 });
    expect(runTimeout(45_000, { realModel: true })).toEqual({ firstChunkMs: CLI_STREAM_SILENCE_MS, chunkMs: CLI_STREAM_SILENCE_MS, totalMs: 45_000 });
    expect(runTimeout(undefined, { realModel: false })).toBeUndefined();
    expect(runTimeout(45_000, { realModel: false })).toEqual({ totalMs: 45_000 });
  });
});
