/** Exact (non-regex) text search and replacement used by the edit tool. */

import { escapeRegExp } from './search-pattern.js';

/**
 * Start indices of the non-overlapping occurrences of `needle` in `text`.
 *
 * @example
 * findOccurrences('a-a-a', 'a') // [0, 2, 4]
 */
export function findOccurrences(text: string, needle: string): number[] {
  if (needle === '') return [];
  const indices: number[] = [];
  let index = text.indexOf(needle);
  while (index !== -1) {
    indices.push(index);
    index = text.indexOf(needle, index + needle.length);
  }
  return indices;
}

/**
 * Replaces the occurrences of `needle` starting at `indices` (as returned by
 * `findOccurrences`) with `replacement`, taken literally (no `$&` patterns).
 *
 * @example
 * replaceOccurrences('a-a', 'a', [2], 'b') // "a-b"
 */
export function replaceOccurrences(text: string, needle: string, indices: readonly number[], replacement: string): string {
  let result = '';
  let copiedUpTo = 0;
  for (const index of indices) {
    result += text.slice(copiedUpTo, index) + replacement;
    copiedUpTo = index + needle.length;
  }
  return result + text.slice(copiedUpTo);
}

/**
 * 1-based line number of the character at `index`.
 *
 * @example
 * lineNumberAt('a\nb\nc', 4) // 3
 */
export function lineNumberAt(text: string, index: number): number {
  let line = 1;
  for (let newline = text.indexOf('\n'); newline !== -1 && newline < index; newline = text.indexOf('\n', newline + 1)) {
    line += 1;
  }
  return line;
}

/**
 * Converts bare `\n` line endings to `\r\n`, leaving existing `\r\n` alone.
 *
 * @example
 * toCrlf('a\nb\r\n') // "a\r\nb\r\n"
 */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/**
 * True when `text` has line breaks and every one is `\r\n`: a file whose
 * line endings an edit should keep.
 *
 * @example
 * endsLinesWithCrlfOnly('a\r\nb\r\n') // true
 * endsLinesWithCrlfOnly('a\r\nb\n')   // false
 * endsLinesWithCrlfOnly('a')           // false
 */
export function endsLinesWithCrlfOnly(text: string): boolean {
  let lineBreaks = 0;
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', newline + 1)) {
    if (text.charCodeAt(newline - 1) !== 0x0d) return false;
    lineBreaks += 1;
  }
  return lineBreaks > 0;
}

/** A stretch of text: where it starts and how many UTF-16 units it has. */
export interface TextSpan {
  index: number;
  length: number;
}

/**
 * The non-overlapping occurrences of `needle` in `text` where each `\n` of
 * `needle` matches `\n` or `\r\n`: `needle` as `read` shows a file that
 * mixes CRLF and LF line breaks (without the `\r`s), found in the file.
 *
 * @example
 * findOccurrencesAnyLineEnding('a\r\nb\nc', 'a\nb\nc') // [{ index: 0, length: 6 }]
 */
export function findOccurrencesAnyLineEnding(text: string, needle: string): TextSpan[] {
  if (needle === '') return [];
  // Literal pieces joined by an optional \r: no nested repetition, so matching stays linear.
  const pattern = new RegExp(needle.split('\n').map(escapeRegExp).join('\r?\n'), 'g');
  return Array.from(text.matchAll(pattern), (match) => ({ index: match.index, length: match[0].length }));
}

/**
 * Replaces each of `spans` (in order, not overlapping) with `replacement`, or
 * what it gives for that span, taken literally.
 *
 * @example
 * replaceSpans('a\r\nb-a\nb', [{ index: 0, length: 4 }, { index: 5, length: 3 }], 'x') // "x-x"
 */
export function replaceSpans(text: string, spans: readonly TextSpan[], replacement: string | ((span: TextSpan) => string)): string {
  let result = '';
  let copiedUpTo = 0;
  for (const span of spans) {
    result += text.slice(copiedUpTo, span.index) + (typeof replacement === 'string' ? replacement : replacement(span));
    copiedUpTo = span.index + span.length;
  }
  return result + text.slice(copiedUpTo);
}
