/**
 * File enumeration shared by glob and grep: tinyglobby below a directory of
 * the workspace, skipping node_modules, .git and what the workspace's
 * `.gitignore` files ignore, never leaving the workspace through symbolic links.
 * The glob from the model never runs on this thread: the tree is walked with
 * a pattern that is cheap to match (`crawlPatternsFor`), and the glob is
 * matched against what was found in the regex worker, under a deadline.
 */
import fs from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { throwIfAborted } from './abort.js';
import { GitignoreRules, gitignoreFilesIn } from './gitignore-rules.js';
import { crawlPatternsFor } from './glob-crawl-patterns.js';
import { regexRunner } from './regex-worker.js';
import { isWithinRoot, toWorkspaceRelative } from './workspace.js';
import { errorCode } from './fs-errors.js';
import type { UnreadPath } from './line-format.js';

/** Directories no built-in tool descends into. */
export const IGNORED_DIRECTORY_GLOBS: readonly string[] = ['**/node_modules/**', '**/.git/**'];

export interface WorkspaceFile {
  /** Absolute path, as reached from the search directory. */
  absolutePath: string;
  /** Path relative to the workspace root, with `/` separators. */
  workspacePath: string;
}

export interface ListWorkspaceFilesOptions {
  /** Real path of the workspace root. */
  realRoot: string;
  /** Real path of the directory to search in (inside `realRoot`). */
  directory: string;
  /** A glob (picomatch syntax, `dot: true`) matched against each file's path relative to `directory`. */
  pattern: string;
  /** Match `pattern` against each file's name only, at any depth (picomatch's `basename`). */
  basename?: boolean;
  /** Epoch ms by which matching `pattern` must be done. */
  deadline: number;
  signal?: AbortSignal;
  /** Name used in the abort error. */
  operation: string;
  /** Leave out files a `.gitignore` of the workspace ignores (below `directory`, which is searched even if one ignores it). Default true. */
  respectGitignore?: boolean;
  /**
   * Receives the workspace paths (with U+FFFD) of matching files whose names are not valid UTF-8: Node gives such a
   * name as text with U+FFFD in place of the bytes, and no file has that name, so they cannot be read and are left out.
   */
  namesNotUtf8?: string[];
  /** Receives the directories below `directory` that could not be read (their files are not in the result), but for those a `.gitignore` ignores. */
  unreadDirectories?: UnreadPath[];
  /** Receives the workspace paths of matching files left out because a `.gitignore` ignores them (with `respectGitignore`). */
  ignoredFiles?: string[];
}

/** The file system tinyglobby walks with: `node:fs`, but a directory that cannot be read is noted, not passed over in silence. */
function notingFileSystem(directory: string, failed: Array<{ absolutePath: string; code: string | undefined }>) {
  const readdir = ((dir: string, options: unknown, callback: (error: NodeJS.ErrnoException | null, entries?: unknown) => void) =>
    fs.readdir(dir, options as fs.ObjectEncodingOptions & { withFileTypes: true }, (error, entries) => {
      // One that is gone by now was not there to search.
      if (error && error.code !== 'ENOENT' && error.code !== 'ENOTDIR') failed.push({ absolutePath: path.resolve(directory, dir), code: errorCode(error) });
      callback(error, entries);
    })) as unknown as typeof fs.readdir;
  return { readdir };
}

/**
 * Files below `directory` matching `pattern`, sorted by workspace path.
 * Hidden files are included; entries whose real path is outside the
 * workspace (symbolic links pointing out) are dropped.
 *
 * @example
 * const files = await listWorkspaceFiles({ realRoot, directory: realRoot, pattern: '**\/*.ts', deadline: Date.now() + 10_000, operation: 'glob' });
 * @throws WorkerDeadlineError when matching the pattern is not done by `deadline`, or `signal` aborts it.
 */
export async function listWorkspaceFiles(options: ListWorkspaceFilesOptions): Promise<WorkspaceFile[]> {
  const { realRoot, directory, pattern, basename, deadline, signal, operation } = options;
  throwIfAborted(signal, operation);
  const unreadable: Array<{ absolutePath: string; code: string | undefined }> = [];
  const found = await glob(crawlPatternsFor(pattern, { basename }), {
    fs: notingFileSystem(directory, unreadable),
    cwd: directory,
    dot: true,
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: false,
    ignore: [...IGNORED_DIRECTORY_GLOBS],
    ...(signal ? { signal } : {}),
  });
  throwIfAborted(signal, operation);
  const matches = await regexRunner.matchPaths(pattern, found, { basename, signal, deadline });
  throwIfAborted(signal, operation);

  const files = await Promise.all(
    matches.map(async (match): Promise<WorkspaceFile | undefined> => {
      const absolutePath = path.resolve(directory, match);
      const realPath = await realpath(absolutePath).catch(() => undefined);
      if (realPath === undefined && match.includes('\uFFFD')) options.namesNotUtf8?.push(toWorkspaceRelative(realRoot, absolutePath));
      if (realPath === undefined || !isWithinRoot(realRoot, realPath)) return undefined;
      return { absolutePath, workspacePath: toWorkspaceRelative(realRoot, absolutePath) };
    }),
  );
  throwIfAborted(signal, operation);
  const rules = options.respectGitignore === false ? undefined : new GitignoreRules(gitignoreFilesIn(realRoot), toWorkspaceRelative(realRoot, directory));
  for (const { absolutePath, code } of unreadable) {
    const workspacePath = toWorkspaceRelative(realRoot, absolutePath);
    if (workspacePath === '.' || !(await rules?.ignores(workspacePath, true))) options.unreadDirectories?.push({ path: workspacePath, code });
  }
  const kept = rules
    ? await Promise.all(
        files.map(async (file) => {
          if (file === undefined || !(await rules.ignores(file.workspacePath))) return file;
          options.ignoredFiles?.push(file.workspacePath);
          return undefined;
        }),
      )
    : files;
  throwIfAborted(signal, operation);
  return kept
    .filter((file): file is WorkspaceFile => file !== undefined)
    .sort((a, b) => (a.workspacePath < b.workspacePath ? -1 : a.workspacePath > b.workspacePath ? 1 : 0));
}
