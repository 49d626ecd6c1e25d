import { stat } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { countLimitSchema, respectGitignoreSchema, workspaceCwdSchema } from './limit-option.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { parseOptions } from '../core/options-check.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { looksBinary } from './binary.js';
import { describeFsError, errorCode } from './fs-errors.js';
import { cutLongLine, displayName, namesNotUtf8Notice, unreadNotice, type UnreadPath } from './line-format.js';
import { WorkerDeadlineError } from './bounded-worker.js';
import { regexRunner } from './regex-worker.js';
import { compileSearchPattern } from './search-pattern.js';
import { listWorkspaceFiles, type WorkspaceFile } from './workspace-files.js';
import { assertGlobPatternStaysInside, openForReading, realWorkspaceRoot, resolveInWorkspace, toWorkspaceRelative } from './workspace.js';

export const GREP_MAX_MATCHES = 200;
export const GREP_MAX_LINE_CHARS = 500;
/** Larger files are skipped (and the skip reported) rather than loaded whole. */
export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** How long one grep may spend matching: a pattern that backtracks catastrophically is stopped then. */
export const GREP_TIME_LIMIT_MS = 10_000;

export interface GrepToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
  /** Skip files the workspace's `.gitignore` files ignore, as git and every coding agent's search do. Default true. */
  respectGitignore?: boolean;
  /** Matches listed before the search stops with a notice. Default 200. */
  maxMatches?: number;
  /** How long one grep may spend matching before it stops with an error. Default 10 s. */
  timeLimitMs?: number;
}

const grepOptionsSchema = z.strictObject({
  cwd: workspaceCwdSchema,
  respectGitignore: respectGitignoreSchema,
  maxMatches: countLimitSchema.optional(),
  timeLimitMs: timerMsSchema.optional(),
});

const grepInputSchema = toolInputObject('grep', {
  pattern: z.string().min(1).describe("JavaScript regular expression to search for, without /slashes/ (flag i is ignoreCase), or plain text with literal: true."),
  path: z.string().optional().describe('File or directory to search, relative to the workspace root. Default: the root.'),
  glob: z
    .string()
    .optional()
    .describe("Only search files matching this glob, e.g. '*.ts' (matched against the file name) or 'src/**/*.ts'."),
  ignoreCase: z.boolean().optional().describe('Case-insensitive search.'),
  literal: z.boolean().optional().describe('Treat pattern as plain text, not a regular expression.'),
});

export type GrepToolInput = z.infer<typeof grepInputSchema>;

/**
 * The `grep` tool: searches file contents line by line with a JavaScript
 * regular expression and returns `file:line: text` matches (at most 200,
 * lines cut at 500 characters), skipping binary files, node_modules and .git.
 *
 * @example
 * const grep = grepTool({ cwd: '/tmp/ws' });
 * await grep.execute({ pattern: 'TODO', glob: '*.ts' }, { toolCallId: 't1', messages: [], context: {} });
 * // "src/a.ts:12: // TODO: handle errors"
 */
export function grepTool(options: GrepToolOptions): BuiltinTool<GrepToolInput> {
  const { cwd, respectGitignore = true, maxMatches = GREP_MAX_MATCHES, timeLimitMs = GREP_TIME_LIMIT_MS } = parseOptions('grepTool', grepOptionsSchema, options);
  return tool({
    description:
      'Search file contents with a JavaScript regular expression. Returns matching lines as "file:line: text", ' +
      `at most ${maxMatches}. Filter files with glob; binary files, node_modules, .git and files .gitignore ignores are skipped.`,
    inputSchema: grepInputSchema,
    execute: async ({ pattern, path: userPath = '.', glob, ignoreCase, literal }, { abortSignal }) => {
      const regex = compileSearchPattern(pattern, { ignoreCase, literal });
      if (glob !== undefined) {
        if (glob === '') throw new Error("glob '' is empty; give a pattern such as '*.ts', or leave glob out to search every file");
        // Relative to the directory searched, as glob's pattern is: an absolute or '..' one could only ever find nothing.
        assertGlobPatternStaysInside(glob);
      }
      const deadline = Date.now() + timeLimitMs;
      const realRoot = await realWorkspaceRoot(cwd);
      const target = await resolveInWorkspace(cwd, userPath);
      const stats = await stat(target).catch((error: unknown) => {
        throw describeFsError(error, userPath);
      });
      if (!stats.isDirectory() && !stats.isFile()) throw new Error(`Path '${userPath}' is not a regular file or a directory`);

      let files: WorkspaceFile[];
      const namesNotUtf8: string[] = [];
      const unreadDirectories: UnreadPath[] = [];
      const unreadFiles: UnreadPath[] = [];
      const searchesOneFile = !stats.isDirectory();
      if (stats.isDirectory()) {
        // A glob without `/` matches file names at any depth (like ripgrep's --glob); one with `/` the relative path.
        files = await listWorkspaceFiles({
          realRoot,
          directory: target,
          pattern: glob ?? '**',
          basename: glob !== undefined && !glob.includes('/'),
          deadline,
          signal: abortSignal,
          operation: 'grep',
          respectGitignore,
          namesNotUtf8,
          unreadDirectories,
        }).catch((error: unknown) => {
          if (!(error instanceof WorkerDeadlineError)) throw error;
          throwIfAborted(abortSignal, 'grep');
          throw new Error(
            `grep stopped after ${timeLimitMs / 1000} s matching the glob '${glob ?? '**'}': the glob takes too long ` +
              '(several * in one path segment, such as *a*a*a*b, can take exponential time). Simplify it',
          );
        });
      } else {
        if (glob !== undefined) {
          throw new Error(`glob '${glob}' chooses files in a directory, but path '${userPath}' is a file; leave glob out, or give a directory as path`);
        }
        files = [{ absolutePath: target, workspacePath: toWorkspaceRelative(realRoot, target) }];
      }

      const matches: string[] = [];
      let skippedLargeFiles = 0;
      let hitMatchLimit = false;
      for (const file of files) {
        throwIfAborted(abortSignal, 'grep');
        const fileStats = await stat(file.absolutePath).catch(() => undefined);
        // Only regular files: a FIFO would block the read forever.
        if (fileStats === undefined || !fileStats.isFile()) continue;
        const size = fileStats.size;
        if (size > GREP_MAX_FILE_BYTES) {
          skippedLargeFiles += 1;
          continue;
        }
        // A file found in a directory that cannot be read is passed over, and said so; the one file asked for fails the call.
        const handle = await openForReading(cwd, file.absolutePath, file.workspacePath).catch((error: unknown) => {
          if (!searchesOneFile) return void unreadFiles.push({ path: file.workspacePath, code: errorCode(error) });
          throw error instanceof Error && !('code' in error) ? error : describeFsError(error, userPath);
        });
        let content: Buffer | undefined;
        if (handle) {
          try {
            content = await handle.readFile().catch((error: unknown) => {
              if (!searchesOneFile) return void unreadFiles.push({ path: file.workspacePath, code: errorCode(error) });
              throw describeFsError(error, userPath);
            });
          } finally {
            await handle.close();
          }
        }
        if (content !== undefined && searchesOneFile && looksBinary(content)) {
          throw new Error(`File '${userPath}' looks binary (it contains NUL bytes); grep searches only text files`);
        }
        if (content === undefined || looksBinary(content)) continue;

        // Matching runs in a worker, where a runaway pattern can be stopped by the deadline or an abort.
        const found = await regexRunner
          .match(regex, content.toString('utf8'), maxMatches - matches.length, { signal: abortSignal, deadline })
          .catch((error: unknown) => {
            if (!(error instanceof WorkerDeadlineError)) throw error;
            throwIfAborted(abortSignal, 'grep');
            throw new Error(
              `grep stopped after ${timeLimitMs / 1000} s matching /${pattern}/ in ${file.workspacePath}: the pattern takes too long ` +
                '(nested repetition such as (a+)+ can take exponential time). Simplify it, or set literal to true to search for plain text',
            );
          });
        for (const match of found.matches) matches.push(`${displayName(file.workspacePath)}:${match.line}: ${cutLongLine(match.text, GREP_MAX_LINE_CHARS)}`);
        if (found.more) {
          hitMatchLimit = true;
          break;
        }
      }

      const notices: string[] = [];
      if (hitMatchLimit) {
        notices.push(`[truncated: stopped after ${maxMatches} matches; narrow the pattern, path or glob]`);
      }
      if (skippedLargeFiles > 0) {
        notices.push(`[skipped ${skippedLargeFiles} file(s) larger than ${GREP_MAX_FILE_BYTES / (1024 * 1024)} MB]`);
      }
      if (namesNotUtf8.length > 0) notices.push(namesNotUtf8Notice(namesNotUtf8));
      if (unreadDirectories.length > 0) notices.push(unreadNotice('directory', unreadDirectories, 'searched'));
      if (unreadFiles.length > 0) notices.push(unreadNotice('file', unreadFiles, 'searched'));
      const body = matches.length > 0 ? matches.join('\n') : `No matches for /${pattern}/ in ${userPath}`;
      return notices.length > 0 ? `${body}\n\n${notices.join('\n')}` : body;
    },
  });
}
