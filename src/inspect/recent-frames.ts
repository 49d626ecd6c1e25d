import { frameEventCount } from './inspection-frame.js';

/** What the replay buffer holds at most by default: 32 MiB of frames. */
export const DEFAULT_REPLAY_BYTES = 32 * 2 ** 20;

/**
 * The relay's replay buffer: the newest frames as they were received, whole,
 * enough of them to hold the newest `limit` events (so a late page may get a
 * few more than `limit`: the oldest frame kept is never cut), and never more
 * than `maxBytes` bytes of frames: the oldest go first, and a frame larger
 * than `maxBytes` on its own empties the buffer (what is replayed is always
 * the stream's newest frames, without a gap).
 *
 * @example
 * ```ts
 * const recent = new RecentFrames(1000, 32 * 2 ** 20);
 * recent.add(frame);
 * for (const frame of recent.frames()) page.send(frame, { binary: false });
 * ```
 */
export class RecentFrames {
  private kept: Array<{ frame: Buffer; events: number }> = [];
  private events = 0;
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly maxBytes = DEFAULT_REPLAY_BYTES,
  ) {}

  add(frame: Buffer): void {
    if (this.limit <= 0) return;
    if (frame.length > this.maxBytes) {
      this.kept = [];
      this.events = 0;
      this.bytes = 0;
      return;
    }
    const events = frameEventCount(frame);
    this.kept.push({ frame, events });
    this.events += events;
    this.bytes += frame.length;
    while (this.kept.length > 1 && (this.bytes > this.maxBytes || this.events - this.kept[0]!.events >= this.limit)) {
      const oldest = this.kept.shift()!;
      this.events -= oldest.events;
      this.bytes -= oldest.frame.length;
    }
  }

  /** The kept frames, oldest first. */
  frames(): Buffer[] {
    return this.kept.map(({ frame }) => frame);
  }

  /** How many bytes the kept frames take. */
  get size(): number {
    return this.bytes;
  }
}
