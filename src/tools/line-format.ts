/** Formatting of individual lines for tool output. */

const LINE_NUMBER_MIN_WIDTH = 6;

/**
 * Prefixes each line with its number like `cat -n`: the number right-aligned
 * in a column of at least six characters, a tab, then the line.
 *
 * @example
 * numberLines(['a', 'b'], 9) // "     9\ta\n    10\tb"
 */
export function numberLines(lines: readonly string[], firstLineNumber = 1): string {
  const lastLineNumber = firstLineNumber + lines.length - 1;
  const width = Math.max(LINE_NUMBER_MIN_WIDTH, String(lastLineNumber).length);
  return lines.map((line, index) => `${String(firstLineNumber + index).padStart(width)}\t${line}`).join('\n');
}

/**
 * Cuts a line longer than `maxChars` characters and appends a marker with its
 * full length (`totalChars`, for callers that only kept the line's start).
 * Never splits a surrogate pair.
 *
 * @example
 * cutLongLine('abcdef', 3) // "abc… [line cut: 6 chars]"
 */
export function cutLongLine(line: string, maxChars: number, totalChars = line.length): string {
  if (totalChars <= maxChars) return line;
  return `${cutAt(line, maxChars)}… [line cut: ${totalChars} chars]`;
}

/**
 * The first `maxChars` characters of `line` (fewer by one rather than half of a surrogate pair).
 * Pure.
 *
 * @example
 * cutAt('abcdef', 3) // "abc"
 */
export function cutAt(line: string, maxChars: number): string {
  let end = Math.min(maxChars, line.length);
  const lastKept = line.charCodeAt(end - 1);
  if (end > 0 && lastKept >= 0xd800 && lastKept <= 0xdbff) end -= 1;
  return line.slice(0, end);
}

/** Removes one trailing carriage return, so CRLF files display like LF files. */
export function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Characters that would break a listing's one-name-per-line shape or reorder what is shown. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A file name or path as a listing shows it: as it is, or, when it holds a
 * line break, another control character or a bidirectional override (or
 * starts with `"`), quoted and escaped as a JSON string, so that a name
 * like `a.txt\nsecret.txt` cannot pass for two entries. Pure.
 *
 * @example
 * displayName('src/a.ts')            // "src/a.ts"
 * displayName('a.txt\nsecret.txt')   // "\"a.txt\\nsecret.txt\""
 */
export function displayName(name: string): string {
  if (!UNSAFE_IN_NAME.test(name) && !name.startsWith('"')) return name;
  return JSON.stringify(name).replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The notice glob and grep add for files they found but cannot open: their
 * names are not valid UTF-8. Pure.
 *
 * @example
 * namesNotUtf8Notice(['bad\uFFFD.txt']) // "[1 file whose name is not valid UTF-8 left out (shown with \uFFFD): bad\uFFFD.txt; …]"
 */
export function namesNotUtf8Notice(paths: readonly string[]): string {
  const shown = firstFive([...paths].sort().map(displayName));
  const count = paths.length === 1 ? '1 file whose name is' : `${paths.length} files whose names are`;
  return `[${count} not valid UTF-8 left out (shown with \uFFFD): ${shown}; the tools cannot open a file by such a name: rename it with bash to reach it]`;
}

/** The first five of `items`, then how many more: a notice names a few and counts the rest. */
export function firstFive(items: readonly string[]): string {
  return items.slice(0, 5).join(', ') + (items.length > 5 ? `, and ${items.length - 5} more` : '');
}

/** A file or directory a search came upon and could not read, and the error's code (`'EACCES'`, …). */
export interface UnreadPath {
  /** The workspace path. */
  path: string;
  code: string | undefined;
}

const UNREAD_REASONS: Readonly<Record<string, string>> = { EACCES: 'permission denied', EPERM: 'permission denied', EIO: 'input/output error', ELOOP: 'too many symbolic links' };

/**
 * The notice glob and grep add for what they came upon and could not read: without it, "No
 * matches" or a short listing would pass for the whole truth. Pure.
 *
 * @example
 * unreadNotice('directory', [{ path: 'secret', code: 'EACCES' }], 'searched')
 * // "[1 directory could not be read, so what is in it was not searched: secret (permission denied)]"
 */
export function unreadNotice(kind: 'directory' | 'file', unread: readonly UnreadPath[], verb: 'searched' | 'listed'): string {
  const sorted = [...unread].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shown = firstFive(sorted.map(({ path, code }) => `${displayName(path)} (${(code !== undefined ? UNREAD_REASONS[code] : undefined) ?? code?.toLowerCase() ?? 'unreadable'})`));
  const count = unread.length === 1 ? `1 ${kind} could not be read` : `${unread.length} ${kind === 'directory' ? 'directories' : 'files'} could not be read`;
  const consequence = kind === 'directory' ? `what is in ${unread.length === 1 ? 'it' : 'them'} was not ${verb}` : `${unread.length === 1 ? 'it was' : 'they were'} not ${verb}`;
  return `[${count}, so ${consequence}: ${shown}]`;
}

/**
 * The notice glob and grep add for the files (of glob's pattern, of grep's glob) a `.gitignore` of
 * the workspace ignores, in the words of ls's: without it, "No files match" or "No matches" would
 * say the files are not there, or hold nothing. It says what reaches them: a file ignored by its own
 * name (`*.log`) stays ignored in any directory named as path, but grep and read take the file itself.
 * Pure.
 *
 * @example
 * ignoredNotice(['dist/a.js'], 'listed')
 * // "[1 matching file ignored by .gitignore not listed: dist/a.js; read and grep take such a file as path, and glob lists in an ignored directory named as path]"
 */
export function ignoredNotice(paths: readonly string[], verb: 'searched' | 'listed'): string {
  const shown = firstFive([...paths].sort().map(displayName));
  // grep's files are those its glob chose; "matching" would read as matching its pattern.
  const noun = verb === 'listed' ? 'matching file' : 'file';
  const count = paths.length === 1 ? `1 ${noun}` : `${paths.length} ${noun}s`;
  const reach = verb === 'listed' ? 'read and grep take such a file as path, and glob lists in an ignored directory named as path' : 'give one of them, or an ignored directory, as path to search it';
  return `[${count} ignored by .gitignore not ${verb}: ${shown}; ${reach}]`;
}

/** Directory names no search walks into from above (`IGNORED_DIRECTORY_GLOBS`). */
const UNWALKED_DIRECTORIES = ['node_modules', '.git'];

/**
 * The notice for a glob that names `node_modules` or `.git`, which no search walks into from
 * above: the pattern can match nothing there, however many files it would find. `searched` is the
 * workspace path of the directory the pattern is matched in. Pure.
 *
 * @example
 * unwalkedDirectoryNotice('node_modules/zod/**', 'packages/app') // "[node_modules is not walked into from above: give path 'packages/app/node_modules' (or a directory inside it) to look there]"
 * unwalkedDirectoryNotice('src/**', '.') // undefined
 */
export function unwalkedDirectoryNotice(pattern: string, searched = '.'): string | undefined {
  const segments = pattern.split('/');
  const named = UNWALKED_DIRECTORIES.find((directory) => segments.includes(directory));
  if (named === undefined) return undefined;
  const above = segments.slice(0, segments.indexOf(named) + 1);
  if (above.some((segment) => /[*?[\]{}()!+@]/.test(segment))) {
    return `[${named} is not walked into from above: give a ${named} directory itself (or a directory inside it) as path to look there]`;
  }
  const path = searched === '.' ? above.join('/') : [searched, ...above].join('/');
  return `[${named} is not walked into from above: give path '${path}' (or a directory inside it) to look there]`;
}
