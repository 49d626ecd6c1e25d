import { stat } from 'node:fs/promises';
import { writeFileAtomically } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { tool } from 'ai';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { workspaceCwdSchema } from './limit-option.js';
import type { BuiltinTool } from './builtin-tool.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { looksBinary } from './binary.js';
import { endsLinesWithCrlfOnly, findOccurrences, findOccurrencesAnyLineEnding, lineNumberAt, replaceSpans, toCrlf, type TextSpan } from './exact-replace.js';
import { describeFsError } from './fs-errors.js';
import { assertEncodableAsUtf8, firstInvalidUtf8 } from './invalid-utf8.js';
import { openForReading, resolveFileInWorkspace } from './workspace.js';

/** Larger files are refused before they are read: edit holds a file whole in memory, several times over. */
export const EDIT_MAX_FILE_BYTES = 50 * 1024 * 1024;

export interface EditToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
}

const editOptionsSchema = z.strictObject({ cwd: workspaceCwdSchema });

const editInputSchema = toolInputObject('edit', {
  path: z.string().describe('File to edit, relative to the workspace root.'),
  oldText: z
    .string()
    .min(1, 'oldText must not be empty')
    .describe(
      'Exact text to replace, including whitespace and indentation. Must match exactly once unless replaceAll is set.',
    ),
  newText: z.string().describe('Text to put in place of oldText.'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring a unique match.'),
});

export type EditToolInput = z.infer<typeof editInputSchema>;

/**
 * The `edit` tool: replaces an exact piece of text in a file. The text must
 * occur exactly once unless `replaceAll` is set.
 *
 * @example
 * const edit = editTool({ cwd: '/tmp/ws' });
 * await edit.execute({ path: 'a.ts', oldText: 'let x = 1', newText: 'const x = 1' }, { toolCallId: 't1', messages: [], context: {} });
 * // "Replaced 1 occurrence in a.ts (line 3)"
 */
export function editTool(options: EditToolOptions): BuiltinTool<EditToolInput> {
  const { cwd } = parseOptions('editTool', editOptionsSchema, options);
  return tool({
    description:
      'Replace exact text in an existing file. oldText must match the file exactly (whitespace included) ' +
      'and be unique unless replaceAll is true; include surrounding lines to make it unique.',
    inputSchema: editInputSchema,
    execute: async (input, { abortSignal }) => {
      if (input.oldText === input.newText) throw new Error('oldText and newText are identical; there is nothing to change');
      // A lone half in oldText can only match half of a character in the file, leaving the other half to be written as U+FFFD.
      assertEncodableAsUtf8(input.oldText, 'oldText');
      assertEncodableAsUtf8(input.newText, 'newText');
      const file = await resolveFileInWorkspace(cwd, input.path);
      // Read, change and write back with no other edit or write of this file in between: a step's calls run at once.
      return withFileLock(file, () => editFile(cwd, file, input, abortSignal));
    },
  });
}

/** The edit of `file` (the real path of `input.path`), once no other change of it is under way. */
async function editFile(
  cwd: string,
  file: string,
  { path: userPath, oldText, newText, replaceAll = false }: EditToolInput,
  abortSignal: AbortSignal | undefined,
): Promise<string> {
  const stats = await stat(file).catch((error: unknown) => {
    throw describeFsError(error, userPath);
  });
  if (!stats.isFile()) throw new Error(`Path '${userPath}' is not a regular file`);
  if (stats.nlink > 1) throw new Error(`Path '${userPath}' has other hard links; editing it would change a file elsewhere too`);
  if (stats.size > EDIT_MAX_FILE_BYTES) {
    throw new Error(
      `File '${userPath}' is ${(stats.size / (1024 * 1024)).toFixed(1)} MB; edit only changes files up to ${EDIT_MAX_FILE_BYTES / (1024 * 1024)} MB, ` +
        'which it reads whole. Change it with a tool that streams it',
    );
  }
  const handle = await openForReading(cwd, file, userPath).catch((error: unknown) => {
    throw error instanceof Error && !('code' in error) ? error : describeFsError(error, userPath);
  });
  // As the file was when read: a change by anything else after this is not overwritten.
  const readStats = await handle.stat({ bigint: true }).catch(async (error: unknown) => {
    await handle.close();
    throw describeFsError(error, userPath);
  });
  const bytes = await handle
    .readFile({ signal: abortSignal })
    .catch((error: unknown) => {
      throwIfAborted(abortSignal, 'edit');
      throw describeFsError(error, userPath);
    })
    .finally(() => handle.close());
  if (looksBinary(bytes)) {
    throw new Error(`File '${userPath}' looks binary (it contains NUL bytes); edit only changes text files`);
  }
  const invalid = firstInvalidUtf8(bytes);
  if (invalid) {
    throw new Error(
      `File '${userPath}' is not valid UTF-8 (its first invalid byte, 0x${invalid.byte.toString(16).padStart(2, '0')}, is on line ${invalid.line}); ` +
        'edit only changes UTF-8 text, because writing the file back would replace every byte it cannot decode. ' +
        'Convert the file to UTF-8 first, or change it with a tool that keeps its encoding',
    );
  }
  const content = bytes.toString('utf8');

  // As read shows the file: without the \r of its CRLF line breaks, which it may mix with LF ones. Counted so, oldText is
  // unique only if it is in what the model saw, and every place it saw it is replaced with replaceAll.
  const asShown = content.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r');
  const occurrences: TextSpan[] = asShown
    ? findOccurrencesAnyLineEnding(content, oldText)
    : findOccurrences(content, oldText).map((index) => ({ index, length: oldText.length }));
  // newText's line breaks as CRLF where it replaces text with CRLF ones, and in a file of CRLF lines however oldText matched.
  const crlfOnly = endsLinesWithCrlfOnly(content);
  const replacementFor = ({ index, length }: TextSpan): string =>
    crlfOnly || (asShown && content.slice(index, index + length).includes('\r\n')) ? toCrlf(newText) : newText;

  if (occurrences.length === 0) {
    throw new Error(
      `oldText not found in ${userPath}. It must match exactly, including whitespace and indentation; read the file again and copy the text`,
    );
  }
  if (occurrences.length > 1 && !replaceAll) {
    throw new Error(
      `oldText matches ${occurrences.length} times in ${userPath}; add surrounding context to make it unique, or set replaceAll to true`,
    );
  }

  const updatedBytes = occurrences.reduce(
    (sum, span) => sum + Buffer.byteLength(replacementFor(span)) - Buffer.byteLength(content.slice(span.index, span.index + span.length)),
    bytes.length,
  );
  if (updatedBytes > EDIT_MAX_FILE_BYTES) {
    throw new Error(
      `Replacing ${occurrences.length} ${occurrences.length === 1 ? 'occurrence' : 'occurrences'} would make '${userPath}' ${(updatedBytes / (1024 * 1024)).toFixed(1)} MB; ` +
        `edit only writes files up to ${EDIT_MAX_FILE_BYTES / (1024 * 1024)} MB. Replace fewer at a time, or use a tool that streams the file`,
    );
  }
  throwIfAborted(abortSignal, 'edit');
  const updated = replaceSpans(content, occurrences, replacementFor);
  await writeFileAtomically(file, updated, { signal: abortSignal, workspace: { root: cwd, userPath }, unchangedSince: readStats }).catch((error: unknown) => {
    throw describeFsError(error, userPath);
  });
  const firstLine = lineNumberAt(content, occurrences[0]!.index);
  const count = occurrences.length === 1 ? '1 occurrence' : `${occurrences.length} occurrences`;
  return `Replaced ${count} in ${userPath} (${occurrences.length === 1 ? 'line' : 'first at line'} ${firstLine})`;
}
