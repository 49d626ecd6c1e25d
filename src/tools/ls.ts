import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { countLimitSchema, respectGitignoreSchema, workspaceCwdSchema } from './limit-option.js';
import { parseOptions } from '../core/options-check.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { describeFsError } from './fs-errors.js';
import { displayName } from './line-format.js';
import { GitignoreRules, gitignoreFilesIn } from './gitignore-rules.js';
import { realWorkspaceRoot, resolveInWorkspace, toWorkspaceRelative } from './workspace.js';

export const LS_MAX_ENTRIES = 500;

export interface LsToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
  /** Entries shown before the rest is summarised as `[… N more]`. Default 500. */
  maxEntries?: number;
  /** Leave out entries the workspace's `.gitignore` files ignore (and say how many). Default true. */
  respectGitignore?: boolean;
}

const lsOptionsSchema = z.strictObject({ cwd: workspaceCwdSchema, maxEntries: countLimitSchema.optional(), respectGitignore: respectGitignoreSchema });

const lsInputSchema = toolInputObject('ls', {
  path: z.string().optional().describe('Directory to list, relative to the workspace root. Default: the root.'),
});

export type LsToolInput = z.infer<typeof lsInputSchema>;

/**
 * The `ls` tool: lists a directory's entries (hidden ones included) sorted by
 * name, directories marked with a trailing `/`, at most 500 entries.
 *
 * @example
 * const ls = lsTool({ cwd: '/tmp/ws' });
 * await ls.execute({ path: 'src' }, { toolCallId: 't1', messages: [], context: {} });
 * // "index.ts\ntools/"
 */
export function lsTool(options: LsToolOptions): BuiltinTool<LsToolInput> {
  const { cwd, maxEntries = LS_MAX_ENTRIES, respectGitignore = true } = parseOptions('lsTool', lsOptionsSchema, options);
  return tool({
    description:
      'List the entries of a directory in the workspace (default: the root), sorted by name. ' +
      `Directories end with '/'. At most ${maxEntries} entries are shown.`,
    inputSchema: lsInputSchema,
    execute: async ({ path: userPath = '.' }, { abortSignal }) => {
      const directory = await resolveInWorkspace(cwd, userPath);
      const stats = await stat(directory).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      if (!stats.isDirectory()) {
        throw new Error(`Path '${userPath}' is a file, not a directory; use the read tool to read it`);
      }

      const listed = await readdir(directory, { withFileTypes: true }).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      const entries = respectGitignore ? await withoutIgnored(cwd, directory, listed) : listed;
      const ignoredCount = listed.length - entries.length;
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const ignoredNote = ignoredCount > 0 ? `\n[${ignoredCount} ${ignoredCount === 1 ? 'entry' : 'entries'} ignored by .gitignore not shown]` : '';
      if (entries.length === 0) return ignoredCount > 0 ? `(nothing in '${userPath}' that .gitignore does not ignore)${ignoredNote}` : `(directory '${userPath}' is empty)`;

      const shown: string[] = [];
      for (const entry of entries.slice(0, maxEntries)) {
        throwIfAborted(abortSignal, 'ls');
        const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && (await pointsToDirectory(directory, entry.name)));
        shown.push(isDirectory ? `${displayName(entry.name)}/` : displayName(entry.name));
      }
      const hidden = entries.length - shown.length;
      return (hidden > 0 ? `${shown.join('\n')}\n[… ${hidden} more]` : shown.join('\n')) + ignoredNote;
    },
  });
}

/** The entries no `.gitignore` of the workspace ignores. */
async function withoutIgnored(cwd: string, directory: string, entries: Dirent[]): Promise<Dirent[]> {
  const realRoot = await realWorkspaceRoot(cwd);
  const base = toWorkspaceRelative(realRoot, await realpath(directory));
  // The directory asked for is listed even if a .gitignore ignores it; what is in it, by the rules that apply there.
  const rules = new GitignoreRules(gitignoreFilesIn(realRoot), base);
  const kept = await Promise.all(
    entries.map(async (entry) => ((await rules.ignores(base === '' || base === '.' ? entry.name : `${base}/${entry.name}`, entry.isDirectory())) ? undefined : entry)),
  );
  return kept.filter((entry): entry is Dirent => entry !== undefined);
}

async function pointsToDirectory(directory: string, linkName: string): Promise<boolean> {
  const target = await stat(path.join(directory, linkName)).catch(() => undefined);
  return target?.isDirectory() === true;
}
