import { stat, type FileHandle } from 'node:fs/promises';
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
import { cutAt, cutLongLine, displayName, firstFive, ignoredNotice, namesNotUtf8Notice, unreadNotice, type UnreadPath } from './line-format.js';
import { WorkerDeadlineError, type JobDeadline } from './bounded-worker.js';
import { regexRunner, type LineMatch } from './regex-worker.js';
import { compileSearchPattern } from './search-pattern.js';
import { cutWindow, fileLineNumber } from './window-cut.js';
import { listWorkspaceFiles, type WorkspaceFile } from './workspace-files.js';
import { assertGlobPatternStaysInside, openForReading, realWorkspaceRoot, resolveInWorkspace, toWorkspaceRelative } from './workspace.js';

export const GREP_MAX_MATCHES = 200;
export const GREP_MAX_LINE_CHARS = 500;
/**
 * How much of a file is read and matched at once: a larger file is searched
 * window by window, each cut after its last line end, so any size takes
 * bounded memory; a line longer than this is searched in pieces of this size.
 */
export const GREP_WINDOW_BYTES = 10 * 1024 * 1024;
/** How long one grep may spend reading and matching: a pattern that backtracks catastrophically, or a huge file, is stopped then. */
export const GREP_TIME_LIMIT_MS = 10_000;

export interface GrepToolOptions {
  /** Workspace root; every path is resolved against it and confined to it. */
  cwd: string;
  /** Skip files the workspace's `.gitignore` files ignore, as git and every coding agent's search do. Default true. */
  respectGitignore?: boolean;
  /** Matches listed before the search stops with a notice. Default 200. */
  maxMatches?: number;
  /**
   * How long one grep may spend reading and matching. Then it stops: with the
   * matches found so far and a notice of how far it got, or, when it found
   * none, with an error saying so. Default 10 s.
   */
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
      // The clock starts once the matching worker is up: starting one (after a runaway search stopped the last) is not the search's time.
      await regexRunner.started();
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
      const ignoredFiles: string[] = [];
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
          ignoredFiles,
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
      const cutLines: string[] = [];
      let hitMatchLimit = false;
      let stopped: { file: WorkspaceFile; search: FileSearch; later: number } | undefined;
      for (const [index, file] of files.entries()) {
        throwIfAborted(abortSignal, 'grep');
        const fileStats = await stat(file.absolutePath).catch(() => undefined);
        // Only regular files: a FIFO would block the read forever.
        if (fileStats === undefined || !fileStats.isFile()) continue;
        // A file found in a directory that cannot be read is passed over, and said so; the one file asked for fails the call.
        const handle = await openForReading(cwd, file.absolutePath, file.workspacePath).catch((error: unknown) => {
          if (!searchesOneFile) return void unreadFiles.push({ path: file.workspacePath, code: errorCode(error) });
          throw error instanceof Error && !('code' in error) ? error : describeFsError(error, userPath);
        });
        if (handle === undefined) continue;
        let search: FileSearch;
        try {
          search = await searchInWindows(handle, regex, maxMatches - matches.length, { signal: abortSignal, deadline }, timeLimitMs);
        } finally {
          await handle.close();
        }
        if (search.readError !== undefined) {
          // What was found before the read failed is dropped with the rest: the notice says the file was not searched.
          if (!searchesOneFile) {
            unreadFiles.push({ path: file.workspacePath, code: errorCode(search.readError) });
            continue;
          }
          throw describeFsError(search.readError, userPath);
        }
        if (search.binary) {
          if (searchesOneFile) throw new Error(`File '${userPath}' looks binary (it contains NUL bytes); grep searches only text files`);
          continue;
        }
        const name = displayName(file.workspacePath);
        for (const match of search.matches) {
          // A match in a piece of a line over one window: its text is the piece's, not the line's start, and its length not the line's.
          const text = search.cutLines.includes(match.line) ? pieceText(match.text) : cutLongLine(match.text, GREP_MAX_LINE_CHARS);
          matches.push(`${name}:${match.line}: ${text}`);
        }
        for (const line of search.cutLines) cutLines.push(`${name}:${line}`);
        if (search.stopped !== undefined) {
          stopped = { file, search, later: files.length - index - 1 };
          break;
        }
        if (search.more) {
          hitMatchLimit = true;
          break;
        }
      }

      const notices: string[] = [];
      if (stopped !== undefined) {
        const { file, search, later } = stopped;
        // Nothing found: an error, which no model takes for "no matches"; matches found: they are kept, and a notice says where the search stopped.
        if (matches.length === 0) throw new Error(deadlineMessage(pattern, timeLimitMs, file.workspacePath, search, { before: files.length - later - 1, of: files.length }));
        const begun = (search.stopped?.bytesSearched ?? 0) > 0;
        const what = begun ? 'the rest of it' : displayName(file.workspacePath);
        const unsearched = `${what}${later > 0 ? ` and the ${later} file(s) after it were` : ' was'}`;
        const where = begun ? ` in ${displayName(file.workspacePath)}` : '';
        notices.push(
          `[stopped after ${timeLimitMs / 1000} s${where}${searchProgress(search)}: ${unsearched} not searched; ` +
            `give a narrower path or glob${search.stopped?.patternTookTheTime ? ', or a simpler pattern' : ''}]`,
        );
      }
      if (hitMatchLimit) {
        notices.push(`[truncated: stopped after ${maxMatches} matches; narrow the pattern, path or glob]`);
      }
      if (cutLines.length > 0) notices.push(overlongLinesNotice(cutLines));
      if (namesNotUtf8.length > 0) notices.push(namesNotUtf8Notice(namesNotUtf8));
      if (ignoredFiles.length > 0) notices.push(ignoredNotice(ignoredFiles, 'searched'));
      if (unreadDirectories.length > 0) notices.push(unreadNotice('directory', unreadDirectories, 'searched'));
      if (unreadFiles.length > 0) notices.push(unreadNotice('file', unreadFiles, 'searched'));
      const body = matches.length > 0 ? matches.join('\n') : `No matches for /${pattern}/ in ${userPath}`;
      return notices.length > 0 ? `${body}\n\n${notices.join('\n')}` : body;
    },
  });
}

/** What searching one file found. */
interface FileSearch {
  /** The file's first 8 KB hold a NUL byte: nothing was matched. */
  binary: boolean;
  /** Matches, numbered by the file's lines, at most the limit asked for. */
  matches: LineMatch[];
  /** There were more matches than the limit. */
  more: boolean;
  /** Lines longer than a window, searched in pieces. */
  cutLines: number[];
  /** Set when the deadline passed before the whole file was searched: how far the search got. */
  stopped?: {
    linesSearched: number;
    bytesSearched: number;
    size: number;
    /** The time ran out while this file's window was being matched, not before it began. */
    whileMatching: boolean;
    /**
     * The pattern had at least half the time limit for that window and still ran out: its doing,
     * not the number or the size of the files searched before.
     */
    patternTookTheTime: boolean;
  };
  /** A read of the file failed. */
  readError?: unknown;
}

/**
 * Searches an opened file window by window (`GREP_WINDOW_BYTES`, cut after
 * the last line end by `cutWindow`), each matched in the regex worker with its
 * matches renumbered as the file's lines. Reads the bytes the file held when
 * the search began (a log appended to meanwhile cannot keep it going), checks
 * the abort signal and the deadline before every window, and stops at `limit`
 * matches.
 */
async function searchInWindows(handle: FileHandle, regex: RegExp, limit: number, limits: JobDeadline, timeLimitMs: number): Promise<FileSearch> {
  const search: FileSearch = { binary: false, matches: [], more: false, cutLines: [] };
  let size: number;
  try {
    ({ size } = await handle.stat());
  } catch (error) {
    return { ...search, readError: error };
  }
  const window = Buffer.allocUnsafe(Math.min(size, GREP_WINDOW_BYTES));
  let position = 0; // where in the file the window starts
  let filled = 0; // bytes of the file in the window
  let firstLine = 1; // the file's line the window starts on (or goes on with, after a cut inside a line)
  for (;;) {
    throwIfAborted(limits.signal, 'grep');
    try {
      while (filled < window.length && position + filled < size) {
        const { bytesRead } = await handle.read(window, filled, Math.min(window.length - filled, size - position - filled), position + filled);
        if (bytesRead === 0) break; // the file shrank
        filled += bytesRead;
      }
    } catch (error) {
      return { ...search, readError: error };
    }
    const endOfFile = filled < window.length || position + filled >= size;
    if (position === 0 && looksBinary(window.subarray(0, filled))) return { ...search, binary: true };
    if (filled === 0) return search;
    throwIfAborted(limits.signal, 'grep');
    const matchingSince = Date.now();
    if (matchingSince >= limits.deadline) {
      return { ...search, stopped: { linesSearched: firstLine - 1, bytesSearched: position, size, whileMatching: false, patternTookTheTime: false } };
    }

    const cut = cutWindow(window.subarray(0, filled), endOfFile);
    const remaining = limit - search.matches.length;
    // One more than remains: a line cut across windows that matched in the last one is dropped here, and must not use up the limit.
    let ranMs = 0;
    const found = await regexRunner.match(regex, window.toString('utf8', 0, cut.length), remaining + 1, limits).catch((error: unknown) => {
      if (!(error instanceof WorkerDeadlineError)) throw error;
      throwIfAborted(limits.signal, 'grep');
      ranMs = error.ranMs;
      return undefined;
    });
    if (found === undefined) {
      // The time the pattern ran in the worker: a worker started for it (after a runaway search) did not run it meanwhile.
      const patternTookTheTime = ranMs >= timeLimitMs / 2;
      return { ...search, stopped: { linesSearched: firstLine - 1, bytesSearched: position, size, whileMatching: true, patternTookTheTime } };
    }
    const lastReported = search.matches.at(-1)?.line;
    const fresh = found.matches
      .map((match) => ({ line: fileLineNumber(firstLine, match.line), text: match.text }))
      .filter((match) => match.line !== lastReported);
    search.matches.push(...fresh.slice(0, remaining));
    if (cut.cutInsideLine && search.cutLines.at(-1) !== firstLine) search.cutLines.push(firstLine);
    if (fresh.length > remaining || found.more) return { ...search, more: true };

    firstLine += cut.newlines;
    window.copyWithin(0, cut.length, filled);
    position += cut.length;
    filled -= cut.length;
    if (endOfFile && filled === 0) return search;
  }
}

/** A match's text from a piece of a line longer than a window: cut as any line, and said to be a piece. */
function pieceText(text: string): string {
  const shown = text.length > GREP_MAX_LINE_CHARS ? `${cutAt(text, GREP_MAX_LINE_CHARS)}…` : text;
  return `${shown} [part of a line over ${megabytes(GREP_WINDOW_BYTES)}]`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** How far a stopped search got, for a file larger than one window (of a smaller one none of it was searched). */
function searchProgress({ stopped }: FileSearch): string {
  if (stopped === undefined || stopped.size <= GREP_WINDOW_BYTES) return '';
  return `, having searched its first ${stopped.linesSearched} lines (${megabytes(stopped.bytesSearched)} of ${megabytes(stopped.size)})`;
}

/** `files`: how many files came before the one the search stopped in, of how many. */
function deadlineMessage(pattern: string, timeLimitMs: number, workspacePath: string, search: FileSearch, files: { before: number; of: number }): string {
  const progress = searchProgress(search);
  if (search.stopped !== undefined && !search.stopped.patternTookTheTime && progress === '') {
    // The time went on the files before this one, not on the pattern: blaming it would send the model the wrong way.
    const rest = files.of - files.before;
    return (
      `grep stopped after ${timeLimitMs / 1000} s with no match for /${pattern}/ in the ${files.before} of ${files.of} files it searched: ` +
      `the time ran out ${search.stopped.whileMatching ? 'while it searched' : 'before it searched'} ${workspacePath}${rest > 1 ? ` and the ${rest - 1} file(s) after it` : ''}. Give a narrower path or glob`
    );
  }
  if (progress === '') {
    return (
      `grep stopped after ${timeLimitMs / 1000} s matching /${pattern}/ in ${workspacePath}: the pattern takes too long ` +
      '(nested repetition such as (a+)+ can take exponential time). Simplify it, or set literal to true to search for plain text'
    );
  }
  return (
    `grep stopped after ${timeLimitMs / 1000} s matching /${pattern}/ in ${workspacePath}${progress}, with no match there: ` +
    'the rest of it was not searched. The file may be too large to search in that time, or the pattern take too long ' +
    '(nested repetition such as (a+)+ can take exponential time): simplify it, set literal to true to search for plain text, or search a smaller file'
  );
}

function overlongLinesNotice(lines: readonly string[]): string {
  const shown = firstFive(lines);
  const pieces = megabytes(GREP_WINDOW_BYTES);
  return (
    `[${lines.length === 1 ? '1 line is' : `${lines.length} lines are`} longer than ${pieces} and ${lines.length === 1 ? 'was' : 'were'} searched in pieces of ${pieces}: ` +
    `a match that crosses a piece's end is not found, and ^ and $ also match at the pieces' ends: ${shown}]`
  );
}
