/**
 * Bounded buffer for a stream of output that keeps only its most recent
 * bytes, while counting what it dropped. Lets a command print gigabytes
 * without the agent holding more than `capacityBytes` of it.
 */
import { isUtf8 } from 'node:buffer';

const NEWLINE = 0x0a;

export interface OutputTailSnapshot {
  /** The kept output. Starts at a line boundary unless the kept bytes are all one line. */
  text: string;
  /** Bytes dropped from the start of the output. */
  droppedBytes: number;
  /** Whole lines dropped from the start of the output. */
  droppedLines: number;
  /** True when `text` starts in the middle of a line (only when it is all one line). */
  startsMidLine: boolean;
  /** The kept bytes are not valid UTF-8 (but for a character cut at their start): `text` shows those bytes as U+FFFD. */
  notUtf8: boolean;
}

/**
 * @example
 * const tail = new OutputTail(100 * 1024);
 * child.stdout.on('data', (chunk: Buffer) => tail.append(chunk));
 * const { text, droppedLines } = tail.snapshot();
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private retainedBytes = 0;
  private droppedBytes = 0;
  private droppedNewlines = 0;
  private lastDroppedByte: number | undefined;

  constructor(private readonly capacityBytes: number) {}

  append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(Buffer.from(chunk));
    this.retainedBytes += chunk.length;
    while (this.retainedBytes > this.capacityBytes) {
      const first = this.chunks[0]!;
      const excess = this.retainedBytes - this.capacityBytes;
      const dropped = first.length <= excess ? first : first.subarray(0, excess);
      if (dropped === first) this.chunks.shift();
      else this.chunks[0] = first.subarray(excess);
      this.droppedBytes += dropped.length;
      this.droppedNewlines += countNewlines(dropped);
      this.lastDroppedByte = dropped[dropped.length - 1];
      this.retainedBytes -= dropped.length;
    }
  }

  snapshot(): OutputTailSnapshot {
    let retained = Buffer.concat(this.chunks);
    let droppedBytes = this.droppedBytes;
    let droppedLines = this.droppedNewlines;
    let startsMidLine = this.droppedBytes > 0 && this.lastDroppedByte !== NEWLINE;
    if (startsMidLine) {
      const firstNewline = retained.indexOf(NEWLINE);
      const moreLinesFollow = firstNewline !== -1 && firstNewline < retained.length - 1;
      if (moreLinesFollow) {
        droppedBytes += firstNewline + 1;
        droppedLines += 1;
        retained = retained.subarray(firstNewline + 1);
        startsMidLine = false;
      }
    }
    // A character the drop cut in two leaves its continuation bytes at the start: that is the cut's doing, not the output's.
    let start = 0;
    if (droppedBytes > 0) while (start < 3 && start < retained.length && (retained[start]! & 0xc0) === 0x80) start += 1;
    return { text: retained.toString('utf8'), droppedBytes, droppedLines, startsMidLine, notUtf8: !isUtf8(retained.subarray(start)) };
  }
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let index = bytes.indexOf(NEWLINE); index !== -1; index = bytes.indexOf(NEWLINE, index + 1)) count += 1;
  return count;
}
