/**
 * Where to cut a window of a file's bytes so that it can be matched on its
 * own: after its last line end, so that no line (and no UTF-8 character,
 * since `\n` is never part of a multi-byte one) is split between two
 * windows. Pure; `grep` reads large files window by window with it.
 */

const NEWLINE = 0x0a;

/** How much of a window to match now, and what the rest carries into the next one. */
export interface WindowCut {
  /** Bytes from the window's start to match now; the rest starts the next window. */
  length: number;
  /** Line ends (`\n`) within those bytes: the next window's first line is this window's first line plus this. */
  newlines: number;
  /**
   * True when the window holds no line end although more of the file follows:
   * one line is longer than the window, and is cut (at a UTF-8 character
   * boundary) here; its next part starts the next window, with the same line number.
   */
  cutInsideLine: boolean;
}

/**
 * Cuts `window` (bytes of a file, from the start of a line or from where an
 * over-long line was cut) after its last `\n`. At the end of the file the
 * whole window is taken, its last line whether or not it ends with `\n`. A
 * full window with no `\n` at all is one over-long line: it is cut at the last
 * UTF-8 character boundary instead, and said so.
 *
 * @example
 * cutWindow(Buffer.from('one\ntwo\nthr'), false) // { length: 8, newlines: 2, cutInsideLine: false }: 'thr' goes on in the next window
 * cutWindow(Buffer.from('one\ntwo'), true)       // { length: 7, newlines: 1, cutInsideLine: false }
 * cutWindow(Buffer.from('abcdef'), false)        // { length: 6, newlines: 0, cutInsideLine: true }
 */
export function cutWindow(window: Uint8Array, endOfFile: boolean): WindowCut {
  if (endOfFile) return { length: window.length, newlines: countNewlines(window, window.length), cutInsideLine: false };
  const lastNewline = window.lastIndexOf(NEWLINE);
  if (lastNewline !== -1) return { length: lastNewline + 1, newlines: countNewlines(window, lastNewline + 1), cutInsideLine: false };
  return { length: utf8BoundaryAtEnd(window), newlines: 0, cutInsideLine: true };
}

/**
 * The 1-based line number in the file of line `lineInWindow` (1-based, as the
 * regex worker numbers the lines of the text it is given) of a window whose
 * first line is the file's line `firstLine`.
 *
 * @example
 * fileLineNumber(1001, 1) // 1001
 * fileLineNumber(1001, 5) // 1005
 */
export function fileLineNumber(firstLine: number, lineInWindow: number): number {
  return firstLine + lineInWindow - 1;
}

function countNewlines(bytes: Uint8Array, end: number): number {
  let count = 0;
  for (let index = bytes.indexOf(NEWLINE); index !== -1 && index < end; index = bytes.indexOf(NEWLINE, index + 1)) count += 1;
  return count;
}

/**
 * Where to cut `bytes` at their end without splitting a UTF-8 character: before
 * the last character's lead byte when fewer bytes follow it than it needs.
 * Only the last three bytes are looked at, so bytes that are not UTF-8 cannot
 * move the cut further, and the cut never leaves nothing to match.
 */
function utf8BoundaryAtEnd(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = bytes[end - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back && end - back > 0 ? end - back : end;
  }
  return end;
}
