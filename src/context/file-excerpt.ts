import type { FileHandle } from 'node:fs/promises';
import { INVALID_UTF8_NOTICE } from '../tools/invalid-utf8.js';
import { numberLines } from '../tools/line-format.js';
import { readLineWindow } from '../tools/line-window.js';
import { READ_DEFAULT_LINE_LIMIT, READ_MAX_LINE_CHARS, READ_MAX_OUTPUT_BYTES } from '../tools/read.js';
import { truncateHead } from '../tools/truncate.js';

/**
 * The beginning of a text file exactly as the `read` tool shows it without
 * `offset` and `limit`: numbered lines, at most 2000 lines and 50 KB, long
 * lines cut, and the read tool's notices when the file goes on or is not
 * valid UTF-8. `undefined` for a binary file. A handle given stays the
 * caller's to close.
 *
 * @example
 * await readFileExcerpt('/ws/src/a.ts', 'src/a.ts');
 * // "     1\texport const a = 1;"
 */
export async function readFileExcerpt(file: string | FileHandle, displayPath: string, signal?: AbortSignal): Promise<string | undefined> {
  const window = await readLineWindow(file, {
    firstLine: 1,
    maxLines: READ_DEFAULT_LINE_LIMIT,
    maxBytes: READ_MAX_OUTPUT_BYTES,
    maxLineChars: READ_MAX_LINE_CHARS,
    ...(signal ? { signal } : {}),
  });
  if (window.binary) return undefined;
  if (window.totalLines === 0) return `(file '${displayPath}' is empty)`;
  const shown = truncateHead(numberLines(window.lines, 1), { maxLines: READ_DEFAULT_LINE_LIMIT, maxBytes: READ_MAX_OUTPUT_BYTES });
  const notices: string[] = [];
  if (shown.shownLines < window.totalLines) {
    notices.push(`[truncated: showing lines 1-${shown.shownLines} of ${window.totalLines}. Continue with offset=${shown.shownLines + 1}]`);
  }
  if (window.invalidUtf8) notices.push(INVALID_UTF8_NOTICE);
  return notices.length > 0 ? `${shown.text}\n\n${notices.join('\n')}` : shown.text;
}
