import { stat } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { workspaceCwdSchema } from './limit-option.js';
import type { BuiltinTool } from './builtin-tool.js';
import { toolInputObject } from './tool-input-schema.js';
import { describeFsError } from './fs-errors.js';
import { INVALID_UTF8_NOTICE } from './invalid-utf8.js';
import { numberLines } from './line-format.js';
import { readLineWindow } from './line-window.js';
import { truncateHead } from './truncate.js';
import { openForReading, resolveFileInWorkspace } from './workspace.js';

export const READ_DEFAULT_LINE_LIMIT = 2000;
export const READ_MAX_OUTPUT_BYTES = 50 * 1024;
export const READ_MAX_LINE_CHARS = 2000;

export interface ReadToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
}

const readOptionsSchema = z.strictObject({ cwd: workspaceCwdSchema });

const readInputSchema = toolInputObject('read', {
  path: z.string().describe('File to read, relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start from. Default 1.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines to return. Default ${READ_DEFAULT_LINE_LIMIT}.`),
});

export type ReadToolInput = z.infer<typeof readInputSchema>;

/**
 * The `read` tool: returns a text file with `cat -n` style line numbers, at
 * most 2000 lines and 50 KB per call, with a notice saying which `offset`
 * continues when the output is cut.
 *
 * @example
 * const read = readTool({ cwd: '/tmp/ws' });
 * const text = await read.execute({ path: 'src/index.ts', offset: 1, limit: 50 }, { toolCallId: 't1', messages: [], context: {} });
 */
export function readTool(options: ReadToolOptions): BuiltinTool<ReadToolInput> {
  const { cwd } = parseOptions('readTool', readOptionsSchema, options);
  return tool({
    description:
      'Read a text file in the workspace. Output has line numbers (number, tab, line). ' +
      `Returns at most ${READ_DEFAULT_LINE_LIMIT} lines / ${READ_MAX_OUTPUT_BYTES / 1024} KB; ` +
      'use offset and limit to page through larger files. Lines over ' +
      `${READ_MAX_LINE_CHARS} characters are cut. Use ls for directories.`,
    inputSchema: readInputSchema,
    execute: async ({ path: userPath, offset = 1, limit = READ_DEFAULT_LINE_LIMIT }, { abortSignal }) => {
      const file = await resolveFileInWorkspace(cwd, userPath);
      const stats = await stat(file).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      if (stats.isDirectory()) {
        throw new Error(`Path '${userPath}' is a directory, not a file; use the ls tool to list its contents`);
      }
      if (!stats.isFile()) throw new Error(`Path '${userPath}' is not a regular file`);

      // Opened once and checked: what is read is what was verified to be inside the workspace.
      const handle = await openForReading(cwd, file, userPath).catch((error: unknown) => {
        throw error instanceof Error && !('code' in error) ? error : describeFsError(error, userPath);
      });
      const window = await readLineWindow(handle, {
        firstLine: offset,
        maxLines: limit,
        maxBytes: READ_MAX_OUTPUT_BYTES,
        maxLineChars: READ_MAX_LINE_CHARS,
        signal: abortSignal,
      })
        .catch((error: unknown) => {
          throw describeFsError(error, userPath);
        })
        .finally(() => handle.close());
      if (window.binary) {
        throw new Error(`File '${userPath}' looks binary (it contains NUL bytes); read only shows text files`);
      }
      if (window.totalLines === 0) return `(file '${userPath}' is empty)`;
      if (offset > window.totalLines) {
        throw new Error(`offset ${offset} is beyond the end of '${userPath}', which has ${window.totalLines} lines`);
      }

      const shown = truncateHead(numberLines(window.lines, offset), {
        maxLines: limit,
        maxBytes: READ_MAX_OUTPUT_BYTES,
      });
      const lastShownLine = offset + shown.shownLines - 1;
      const notices: string[] = [];
      if (lastShownLine < window.totalLines) {
        notices.push(`[truncated: showing lines ${offset}-${lastShownLine} of ${window.totalLines}. Continue with offset=${lastShownLine + 1}]`);
      }
      if (window.invalidUtf8) {
        notices.push(INVALID_UTF8_NOTICE);
      }
      if (window.grewWhileRead) {
        notices.push(`[the file grew while it was read: showing it as it was when opened (${window.bytesRead} bytes); read it again for what was appended]`);
      }
      return notices.length > 0 ? `${shown.text}\n\n${notices.join('\n')}` : shown.text;
    },
  });
}
