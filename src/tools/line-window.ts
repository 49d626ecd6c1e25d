/**
 * Streams a text file and collects a window of its lines while counting all
 * of them, so a huge file costs one pass and bounded memory.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { throwIfAborted } from './abort.js';
import { BINARY_SNIFF_BYTES, looksBinary } from './binary.js';
import { cutLongLine, stripCarriageReturn } from './line-format.js';
import { utf8ByteLength } from './truncate.js';

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface LineWindowRequest {
  /** 1-based number of the first line to collect. */
  firstLine: number;
  /** Stop collecting after this many lines. */
  maxLines: number;
  /** Stop collecting once the collected lines exceed this many bytes. */
  maxBytes: number;
  /** Lines longer than this are cut with a marker. */
  maxLineChars: number;
  signal?: AbortSignal;
}

export interface LineWindow {
  /** Collected lines, trailing `\r` removed and long lines cut. */
  lines: string[];
  /** Number of lines in the whole file. */
  totalLines: number;
  /** True when the first 8 KB contain a NUL byte; nothing is collected then. */
  binary: boolean;
  /** True when the bytes read up to the end of the collected lines are not valid UTF-8 (shown as U+FFFD). */
  invalidUtf8: boolean;
  /** Bytes read: the file's size when it was opened (or less, if it shrank); what was appended later is not read. */
  bytesRead: number;
  /** True when the file was larger after the read than when it was opened: something appended to it meanwhile. */
  grewWhileRead: boolean;
}

/**
 * Reads the lines `firstLine…` of a file until `maxLines` lines or just over
 * `maxBytes` bytes are collected, and counts every line of the file. Only the
 * bytes the file held when it was opened are read, so a file another process
 * keeps appending to (a log) cannot keep the read going.
 *
 * @example
 * const { lines, totalLines } = await readLineWindow('/ws/a.txt', {
 *   firstLine: 1, maxLines: 2000, maxBytes: 50 * 1024, maxLineChars: 2000,
 * });
 */
export async function readLineWindow(file: string | FileHandle, request: LineWindowRequest): Promise<LineWindow> {
  const { firstLine, maxLines, maxBytes, maxLineChars, signal } = request;
  // A handle the caller opened (and verified) stays the caller's to close.
  const owned = typeof file === 'string';
  const handle = typeof file === 'string' ? await open(file, 'r') : file;
  try {
    const decoder = new TextDecoder('utf-8');
    // The same bytes again, strictly: the lenient decoder above replaces an invalid byte without a word.
    const strictDecoder = new TextDecoder('utf-8', { fatal: true });
    let invalidUtf8 = false;
    const checkUtf8 = (bytes?: Uint8Array): void => {
      if (invalidUtf8) return;
      try {
        if (bytes) strictDecoder.decode(bytes, { stream: true });
        else strictDecoder.decode();
      } catch {
        invalidUtf8 = true;
      }
    };
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const lines: string[] = [];
    let collectedBytes = 0;
    let collecting = maxLines > 0;
    let newlineCount = 0;
    let lastByte: number | undefined;
    let sniffed = false;
    // fstat at open: the end of what is read, however fast a writer appends.
    const { size } = await handle.stat();
    let position = 0;

    let lineNumber = 1;
    let currentLine = '';
    let currentLength = 0;

    const finishLine = (): void => {
      if (lineNumber >= firstLine) {
        const complete = currentLength === currentLine.length;
        const display = complete
          ? cutLongLine(stripCarriageReturn(currentLine), maxLineChars)
          : cutLongLine(currentLine, maxLineChars, currentLength);
        lines.push(display);
        collectedBytes += utf8ByteLength(display) + 1;
        if (lines.length >= maxLines || collectedBytes > maxBytes) collecting = false;
      }
      lineNumber += 1;
      currentLine = '';
      currentLength = 0;
    };

    const appendToLine = (piece: string): void => {
      if (lineNumber < firstLine) return;
      currentLength += piece.length;
      // One extra character beyond the cut keeps a trailing `\r` distinguishable.
      const room = maxLineChars + 2 - currentLine.length;
      if (room > 0) currentLine += piece.slice(0, room);
    };

    const collectFrom = (text: string): void => {
      let start = 0;
      while (collecting) {
        const newline = text.indexOf('\n', start);
        appendToLine(newline === -1 ? text.slice(start) : text.slice(start, newline));
        if (newline === -1) return;
        finishLine();
        start = newline + 1;
      }
    };

    for (;;) {
      throwIfAborted(signal, 'read');
      if (position >= size) break;
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      if (!sniffed) {
        sniffed = true;
        if (looksBinary(chunk.subarray(0, BINARY_SNIFF_BYTES))) return { lines: [], totalLines: 0, binary: true, invalidUtf8: false, bytesRead: position, grewWhileRead: false };
      }
      newlineCount += countNewlines(chunk);
      lastByte = chunk[bytesRead - 1];
      if (collecting) {
        checkUtf8(chunk);
        collectFrom(decoder.decode(chunk, { stream: true }));
      }
    }
    if (collecting) {
      checkUtf8();
      collectFrom(decoder.decode());
      if (collecting && currentLength > 0) finishLine();
    }

    const hasUnterminatedLastLine = lastByte !== undefined && lastByte !== NEWLINE;
    const grewWhileRead = (await handle.stat()).size > size;
    return { lines, totalLines: newlineCount + (hasUnterminatedLastLine ? 1 : 0), binary: false, invalidUtf8, bytesRead: position, grewWhileRead };
  } finally {
    if (owned) await handle.close();
  }
}

function countNewlines(chunk: Buffer): number {
  let count = 0;
  let index = chunk.indexOf(NEWLINE);
  while (index !== -1) {
    count += 1;
    index = chunk.indexOf(NEWLINE, index + 1);
  }
  return count;
}
