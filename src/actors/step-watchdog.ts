/** The time limits of one LLM call. */
export interface StepLimits {
  firstChunkMs?: number;
  chunkMs?: number;
  stepMs?: number;
}

/**
 * Whether a part of a model call's stream is a chunk of the response's body, which the chunk time
 * limits and the first chunk count: `stream-start` comes with the headers, so a server that sends
 * headers and then nothing has sent none. Pure.
 *
 * @example
 * isBodyChunk({ type: 'stream-start' }) // false
 * isBodyChunk({ type: 'text-delta' })   // true
 */
export function isBodyChunk(part: { type: string }): boolean {
  return part.type !== 'stream-start';
}

/**
 * Watches one LLM call against its limits with a single timer: a chunk only
 * records a timestamp (constant cost), and the timer re-arms itself for the
 * nearest deadline. `onTimeout` is called once, with a message that says
 * which limit was hit.
 */
export class StepWatchdog {
  private readonly startedAt: number;
  private lastChunkAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly limits: StepLimits,
    private readonly onTimeout: (message: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
    this.arm();
  }

  /** Records a chunk's arrival. */
  chunk(): void {
    if (this.limits.chunkMs === undefined && this.limits.firstChunkMs === undefined) return;
    const first = this.lastChunkAt === undefined;
    this.lastChunkAt = this.now();
    // The first chunk swaps the first-chunk deadline for the (possibly nearer) chunk deadline; later chunks only move it away.
    if (first || this.timer === undefined) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.arm();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const next = this.nextDeadline();
    if (next === undefined || this.stopped) return;
    this.timer = setTimeout(() => this.check(), Math.max(0, next.at - this.now()));
  }

  private check(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const next = this.nextDeadline();
    if (next === undefined) return;
    if (this.now() >= next.at) {
      this.stop();
      this.onTimeout(next.message);
    } else {
      this.arm();
    }
  }

  private nextDeadline(): { at: number; message: string } | undefined {
    const { firstChunkMs, chunkMs, stepMs } = this.limits;
    const candidates: Array<{ at: number; message: string }> = [];
    if (this.lastChunkAt === undefined && firstChunkMs !== undefined) {
      candidates.push({ at: this.startedAt + firstChunkMs, message: `No first chunk within ${firstChunkMs} ms (timeout.firstChunkMs).` });
    }
    if (this.lastChunkAt !== undefined && chunkMs !== undefined) {
      candidates.push({ at: this.lastChunkAt + chunkMs, message: `No chunk for ${chunkMs} ms (timeout.chunkMs).` });
    }
    if (stepMs !== undefined) {
      candidates.push({ at: this.startedAt + stepMs, message: `The LLM call took longer than ${stepMs} ms (timeout.stepMs).` });
    }
    return candidates.sort((a, b) => a.at - b.at)[0];
  }
}
