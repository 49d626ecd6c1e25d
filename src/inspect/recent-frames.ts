import { frameEventCount } from './inspection-frame.js';

/**
 * The relay's replay buffer: the newest frames as they were received, whole,
 * enough of them to hold the newest `limit` events (so a late page may get a
 * few more than `limit`: the oldest frame kept is never cut).
 *
 * @example
 * ```ts
 * const recent = new RecentFrames(1000);
 * recent.add(frame);
 * for (const frame of recent.frames()) page.send(frame, { binary: false });
 * ```
 */
export class RecentFrames {
  private kept: Array<{ frame: Buffer; events: number }> = [];
  private events = 0;

  constructor(private readonly limit: number) {}

  add(frame: Buffer): void {
    if (this.limit <= 0) return;
    const events = frameEventCount(frame);
    this.kept.push({ frame, events });
    this.events += events;
    while (this.kept.length > 1 && this.events - this.kept[0]!.events >= this.limit) this.events -= this.kept.shift()!.events;
  }

  /** The kept frames, oldest first. */
  frames(): Buffer[] {
    return this.kept.map(({ frame }) => frame);
  }
}
