import { stat } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { workspaceCwdSchema } from './limit-option.js';
import type { BuiltinTool } from './builtin-tool.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { describeFsError } from './fs-errors.js';
import { assertEncodableAsUtf8 } from './invalid-utf8.js';
import { utf8ByteLength } from './truncate.js';
import { resolveFileInWorkspace } from './workspace.js';
import { makeDirectoriesInWorkspace, NotADirectoryError } from './workspace-directories.js';
import { writeFileAtomically } from './atomic-write.js';
import { withFileLock } from './file-lock.js';

export interface WriteToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
}

const writeOptionsSchema = z.strictObject({ cwd: workspaceCwdSchema });

const writeInputSchema = toolInputObject('write', {
  path: z.string().describe('File to write, relative to the workspace root. Parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

export type WriteToolInput = z.infer<typeof writeInputSchema>;

/**
 * The `write` tool: creates or overwrites a file with the given content,
 * creating missing parent directories.
 *
 * @example
 * const write = writeTool({ cwd: '/tmp/ws' });
 * await write.execute({ path: 'notes/todo.md', content: '# Todo\n' }, { toolCallId: 't1', messages: [], context: {} });
 * // "Wrote 7 bytes to notes/todo.md"
 */
export function writeTool(options: WriteToolOptions): BuiltinTool<WriteToolInput> {
  const { cwd } = parseOptions('writeTool', writeOptionsSchema, options);
  return tool({
    description:
      'Create or overwrite a file in the workspace with the given content. Parent directories are created. ' +
      'Prefer edit for changing part of an existing file.',
    inputSchema: writeInputSchema,
    execute: async ({ path: userPath, content }, { abortSignal }) => {
      assertEncodableAsUtf8(content, 'content');
      const file = await resolveFileInWorkspace(cwd, userPath);
      // Not in the middle of an edit of the same file (a step's calls run at once): that edit would write back over this.
      return withFileLock(file, async () => {
        const existing = await stat(file).catch(() => undefined);
        if (existing?.isDirectory()) throw new Error(`Path '${userPath}' is a directory; cannot write a file there`);
        // A FIFO or a device would block the write or go somewhere else entirely.
        if (existing && !existing.isFile()) throw new Error(`Path '${userPath}' is not a regular file; cannot write to it`);
        if (existing && existing.nlink > 1) throw new Error(`Path '${userPath}' has other hard links; writing it would change a file elsewhere too`);
        throwIfAborted(abortSignal, 'write');
        // One level at a time, each inside the one above as it was opened: a directory swapped for a link meanwhile cannot lead outside.
        await makeDirectoriesInWorkspace(cwd, path.dirname(file), userPath).catch((error: unknown) => {
          if (error instanceof NotADirectoryError) {
            throw new Error(`Cannot create the parent directories of '${userPath}': part of that path is an existing file`, {
              cause: error,
            });
          }
          throw describeFsError(error, userPath);
        });
        try {
          await writeFileAtomically(file, content, { signal: abortSignal, workspace: { root: cwd, userPath } });
        } catch (error) {
          throwIfAborted(abortSignal, 'write');
          throw describeFsError(error, userPath);
        }
        return `Wrote ${utf8ByteLength(content)} bytes to ${userPath}`;
      });
    },
  });
}
