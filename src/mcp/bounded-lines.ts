const NEWLINE = 0x0a;

/** What {@link boundedLines} calls: each whole line, and once for each line that grew past the bound. */
export interface BoundedLineHandlers {
  /** A whole line, without its `\n` (a `\r` before it is kept). */
  line(line: Buffer): void;
  /**
   * A line grew past `maxLineBytes`: `head` is its first `maxLineBytes` bytes.
   * The rest of the line is skipped (never held) up to its `\n`; the lines
   * after it are read as usual.
   */
  tooLong(head: Buffer): void;
}

/**
 * Splits a byte stream into `\n`-terminated lines without ever holding more
 * than `maxLineBytes` of one line: a line that grows past the bound is
 * reported once with its head, and the rest of it is dropped as it arrives.
 * Returns the function to feed each chunk to. A last line without `\n` is
 * never reported. Pure: no I/O.
 *
 * @example
 * ```ts
 * const push = boundedLines(16 * 2 ** 20, { line: (line) => handle(JSON.parse(line.toString('utf8'))), tooLong: () => child.kill() });
 * child.stdout.on('data', push);
 * ```
 */
export function boundedLines(maxLineBytes: number, handlers: BoundedLineHandlers): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  return (chunk) => {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      if (!skipping) {
        if (pendingBytes + piece.length > maxLineBytes) {
          pending.push(piece.subarray(0, maxLineBytes - pendingBytes));
          const head = Buffer.concat(pending);
          pending = [];
          pendingBytes = 0;
          skipping = true;
          handlers.tooLong(head);
        } else {
          pending.push(piece);
          pendingBytes += piece.length;
        }
      }
      if (end === -1) return;
      if (skipping) {
        skipping = false;
      } else {
        const line = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
        handlers.line(line);
      }
      start = end + 1;
    }
  };
}
