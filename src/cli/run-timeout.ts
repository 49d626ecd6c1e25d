import type { AgentTimeout } from '../options.js';

/**
 * How long a real model's stream may stay silent in `loopchart run` unless the config says
 * otherwise: before its first part (`firstChunkMs`) and between two (`chunkMs`). Without a bound, an
 * endpoint that sends its headers and then nothing held the run until Ctrl+C. Ten minutes leaves a
 * reasoning model that thinks before it streams room.
 */
export const CLI_STREAM_SILENCE_MS = 600_000;

type TimeoutObject = Exclude<AgentTimeout, number>;

/** A `timeout` as its object form: a number is the whole run (`totalMs`), as `createAgent` reads it. */
function asObject(timeout: AgentTimeout | undefined): TimeoutObject {
  return typeof timeout === 'number' ? { totalMs: timeout } : (timeout ?? {});
}

/**
 * The config's `timeout` with `--timeout` (the whole run, in ms) over its `totalMs`; undefined when
 * neither says anything. Pure.
 *
 * @example
 * mergeTimeouts({ chunkMs: 30_000, totalMs: 600_000 }, 60_000);
 * // { chunkMs: 30_000, totalMs: 60_000 }
 */
export function mergeTimeouts(configured: AgentTimeout | undefined, totalMsFlag: number | undefined): TimeoutObject | undefined {
  if (configured === undefined && totalMsFlag === undefined) return undefined;
  return { ...asObject(configured), ...(totalMsFlag !== undefined ? { totalMs: totalMsFlag } : {}) };
}

/**
 * The time limits of a run: on a real model, the stream-silence bounds ({@link CLI_STREAM_SILENCE_MS})
 * under what was given; on the scripted model, only what was given. Pure.
 *
 * @example
 * runTimeout({ totalMs: 60_000 }, { realModel: true });
 * // { firstChunkMs: 600_000, chunkMs: 600_000, totalMs: 60_000 }
 */
export function runTimeout(given: AgentTimeout | undefined, { realModel }: { realModel: boolean }): TimeoutObject | undefined {
  if (!realModel) return given === undefined ? undefined : asObject(given);
  return { firstChunkMs: CLI_STREAM_SILENCE_MS, chunkMs: CLI_STREAM_SILENCE_MS, ...asObject(given) };
}
