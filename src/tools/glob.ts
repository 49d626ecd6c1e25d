import { stat } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { countLimitSchema, respectGitignoreSchema, workspaceCwdSchema } from './limit-option.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { parseOptions } from '../core/options-check.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { describeFsError } from './fs-errors.js';
import { displayName, ignoredNotice, namesNotUtf8Notice, unreadNotice, unwalkedDirectoryNotice, type UnreadPath } from './line-format.js';
import { WorkerDeadlineError } from './bounded-worker.js';
import { listWorkspaceFiles } from './workspace-files.js';
import { assertGlobPatternStaysInside, realWorkspaceRoot, resolveInWorkspace, toWorkspaceRelative } from './workspace.js';

export const GLOB_MAX_RESULTS = 500;
/** How long one glob may spend matching its pattern: a pattern that backtracks catastrophically is stopped then. */
export const GLOB_TIME_LIMIT_MS = 10_000;

export interface GlobToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
  /** Skip files the workspace's `.gitignore` files ignore, as git and every coding agent's search do. Default true. */
  respectGitignore?: boolean;
  /** Files listed before the output is cut with a notice. Default 500. */
  maxResults?: number;
  /** How long one glob may spend matching its pattern against the files found before it stops with an error. Default 10 s. */
  timeLimitMs?: number;
}

const globOptionsSchema = z.strictObject({
  cwd: workspaceCwdSchema,
  respectGitignore: respectGitignoreSchema,
  maxResults: countLimitSchema.optional(),
  timeLimitMs: timerMsSchema.optional(),
});

const globInputSchema = toolInputObject('glob', {
  pattern: z.string().min(1).describe("Glob pattern such as '**/*.ts' or 'src/*.{js,json}', relative to path."),
  path: z.string().optional().describe('Directory to search in, relative to the workspace root. Default: the root.'),
});

export type GlobToolInput = z.infer<typeof globInputSchema>;

/**
 * The `glob` tool: finds files by glob pattern and returns their paths
 * relative to the workspace root, sorted, at most 500, skipping
 * node_modules and .git.
 *
 * @example
 * const glob = globTool({ cwd: '/tmp/ws' });
 * await glob.execute({ pattern: '**\/*.test.ts' }, { toolCallId: 't1', messages: [], context: {} });
 * // "test/a.test.ts\ntest/b.test.ts"
 */
export function globTool(options: GlobToolOptions): BuiltinTool<GlobToolInput> {
  const { cwd, maxResults = GLOB_MAX_RESULTS, respectGitignore = true, timeLimitMs = GLOB_TIME_LIMIT_MS } = parseOptions('globTool', globOptionsSchema, options);
  return tool({
    description:
      "Find files whose path matches a glob pattern (e.g. '**/*.ts'), relative to path (default: the workspace root). " +
      `Returns workspace-relative paths, sorted, at most ${maxResults}. node_modules, .git and files .gitignore ignores are skipped.`,
    inputSchema: globInputSchema,
    execute: async ({ pattern, path: userPath = '.' }, { abortSignal }) => {
      assertGlobPatternStaysInside(pattern);
      if (pattern.startsWith('!') && !pattern.startsWith('!(')) {
        throw new Error(`Glob pattern '${pattern}' is negated; give a pattern of the files to find, e.g. '**/*.ts'`);
      }
      const realRoot = await realWorkspaceRoot(cwd);
      const directory = await resolveInWorkspace(cwd, userPath);
      const stats = await stat(directory).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      if (!stats.isDirectory()) throw new Error(`Path '${userPath}' is not a directory`);

      const namesNotUtf8: string[] = [];
      const unreadDirectories: UnreadPath[] = [];
      const ignoredFiles: string[] = [];
      const files = await listWorkspaceFiles({
        realRoot,
        directory,
        pattern: normalizeGlobPattern(pattern),
        deadline: Date.now() + timeLimitMs,
        signal: abortSignal,
        operation: 'glob',
        respectGitignore,
        namesNotUtf8,
        unreadDirectories,
        ignoredFiles,
      }).catch((error: unknown) => {
        if (!(error instanceof WorkerDeadlineError)) throw error;
        throwIfAborted(abortSignal, 'glob');
        throw new Error(
          `glob stopped after ${timeLimitMs / 1000} s matching '${pattern}': the pattern takes too long ` +
            '(several * in one path segment, such as *a*a*a*b, can take exponential time). Simplify it',
        );
      });
      const unwalked = unwalkedDirectoryNotice(normalizeGlobPattern(pattern), toWorkspaceRelative(realRoot, directory));
      const notices = [
        ...(namesNotUtf8.length > 0 ? [namesNotUtf8Notice(namesNotUtf8)] : []),
        ...(unreadDirectories.length > 0 ? [unreadNotice('directory', unreadDirectories, 'listed')] : []),
        ...(ignoredFiles.length > 0 ? [ignoredNotice(ignoredFiles, 'listed')] : []),
        ...(unwalked !== undefined ? [unwalked] : []),
      ];
      const noticed = notices.length > 0 ? `\n\n${notices.join('\n')}` : '';
      if (files.length === 0) return `No files match '${pattern}' in ${userPath}${noticed}`;
      const shown = files.slice(0, maxResults).map((file) => displayName(file.workspacePath));
      if (files.length <= maxResults) return shown.join('\n') + noticed;
      return `${shown.join('\n')}\n\n[truncated: showing ${maxResults} of ${files.length} files; narrow the pattern or path]${noticed}`;
    },
  });
}

/** As tinyglobby reads a pattern: without a trailing `/`, and `./` and `a//b` normalised. */
function normalizeGlobPattern(pattern: string): string {
  return path.posix.normalize(pattern.endsWith('/') ? pattern.slice(0, -1) : pattern);
}
