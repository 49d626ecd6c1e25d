import { stat } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { describeFsError } from './fs-errors.js';
import { listWorkspaceFiles } from './workspace-files.js';
import { assertGlobPatternStaysInside, realWorkspaceRoot, resolveInWorkspace } from './workspace.js';

export const GLOB_MAX_RESULTS = 500;

export interface GlobToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
  /** Skip files the workspace's `.gitignore` files ignore, as git and every coding agent's search do. Default true. */
  respectGitignore?: boolean;
  /** Files listed before the output is cut with a notice. Default 500. */
  maxResults?: number;
}

const globInputSchema = z.object({
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
export function globTool({ cwd, maxResults = GLOB_MAX_RESULTS, respectGitignore = true }: GlobToolOptions): BuiltinTool<GlobToolInput> {
  return tool({
    description:
      "Find files whose path matches a glob pattern (e.g. '**/*.ts'), relative to path (default: the workspace root). " +
      `Returns workspace-relative paths, sorted, at most ${maxResults}. node_modules, .git and files .gitignore ignores are skipped.`,
    inputSchema: globInputSchema,
    execute: async ({ pattern, path: userPath = '.' }, { abortSignal }) => {
      assertGlobPatternStaysInside(pattern);
      const realRoot = await realWorkspaceRoot(cwd);
      const directory = await resolveInWorkspace(cwd, userPath);
      const stats = await stat(directory).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      if (!stats.isDirectory()) throw new Error(`Path '${userPath}' is not a directory`);

      const files = await listWorkspaceFiles({
        realRoot,
        directory,
        patterns: pattern,
        signal: abortSignal,
        operation: 'glob',
        respectGitignore,
      });
      if (files.length === 0) return `No files match '${pattern}' in ${userPath}`;
      const shown = files.slice(0, maxResults).map((file) => file.workspacePath);
      if (files.length <= maxResults) return shown.join('\n');
      return `${shown.join('\n')}\n\n[truncated: showing ${maxResults} of ${files.length} files; narrow the pattern or path]`;
    },
  });
}
