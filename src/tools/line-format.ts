/** Formatting of individual lines for tool output. */

const LINE_NUMBER_MIN_WIDTH = 6;

/**
 * Prefixes each line with its number like `cat -n`: the number right-aligned
 * in a column of at least six characters, a tab, then the line.
 *
 * @example
 * numberLines(['a', 'b'], 9) // "     9\ta\n    10\tb"
 */
export function numberLines(lines: readonly string[], firstLineNumber = 1): string {
  const lastLineNumber = firstLineNumber + lines.length - 1;
  const width = Math.max(LINE_NUMBER_MIN_WIDTH, String(lastLineNumber).length);
  return lines.map((line, index) => `${String(firstLineNumber + index).padStart(width)}\t${line}`).join('\n');
}

/**
 * Cuts a line longer than `maxChars` characters and appends a marker with its
 * full length (`totalChars`, for callers that only kept the line's start).
 * Never splits a surrogate pair.
 *
 * @example
 * cutLongLine('abcdef', 3) // "abc… [line cut: 6 chars]"
 */
export function cutLongLine(line: string, maxChars: number, totalChars = line.length): string {
  if (totalChars <= maxChars) return line;
  let end = Math.min(maxChars, line.length);
  const lastKept = line.charCodeAt(end - 1);
  if (end > 0 && lastKept >= 0xd800 && lastKept <= 0xdbff) end -= 1;
  return `${line.slice(0, end)}… [line cut: ${totalChars} chars]`;
}

/** Removes one trailing carriage return, so CRLF files display like LF files. */
export function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
