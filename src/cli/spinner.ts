import type { TextSink } from './redact.js';

/** Shows which tools are still running. */
export interface ActivityIndicator {
  /** A tool started. */
  add(id: string, label: string): void;
  /** A tool finished. */
  remove(id: string): void;
  /** Erases the indicator's line so that a log line can be written; it comes back on its next frame. */
  clear(): void;
  /** Erases it and stops its timer. */
  stop(): void;
}

/** For non-terminals and `--no-color`: shows nothing. */
export const noIndicator: ActivityIndicator = { add() {}, remove() {}, clear() {}, stop() {} };

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[2K';

export interface SpinnerOptions {
  /** A terminal stream (stderr). */
  stream: TextSink;
  /** Tools that finish sooner than this never show a spinner. Default 400 ms. */
  delayMs?: number;
  /** Default 80 ms. */
  intervalMs?: number;
  now?: () => number;
}

/**
 * A one-line spinner on a terminal for tools that take a while:
 * `⠹ bash, grep · 2.4 s`. It draws only after `delayMs`, redraws in place,
 * and erases itself when the last tool finishes.
 */
export function createSpinner({ stream, delayMs = 400, intervalMs = 80, now = Date.now }: SpinnerOptions): ActivityIndicator {
  const running = new Map<string, { label: string; startedAt: number }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  let drawn = false;

  const clear = () => {
    if (!drawn) return;
    stream.write(CLEAR_LINE);
    drawn = false;
  };
  const draw = () => {
    const tasks = [...running.values()];
    const oldest = Math.min(...tasks.map((task) => task.startedAt));
    const elapsed = now() - oldest;
    if (tasks.length === 0 || elapsed < delayMs) return;
    frame = (frame + 1) % FRAMES.length;
    stream.write(`${CLEAR_LINE}${FRAMES[frame]} ${tasks.map((task) => task.label).join(', ')} · ${(elapsed / 1000).toFixed(1)} s`);
    drawn = true;
  };
  const stop = () => {
    clear();
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };

  return {
    add(id, label) {
      running.set(id, { label, startedAt: now() });
      if (timer === undefined) {
        timer = setInterval(draw, intervalMs);
        timer.unref?.();
      }
    },
    remove(id) {
      running.delete(id);
      if (running.size === 0) stop();
    },
    clear,
    stop() {
      running.clear();
      stop();
    },
  };
}
