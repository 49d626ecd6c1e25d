/**
 * Confinement of tool paths to a workspace root. A path is accepted only when
 * it stays inside the root both as written (no `../` escape, no absolute path
 * elsewhere) and after resolving symbolic links (no link pointing outside).
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describeFsError, errorCode } from './fs-errors.js';

const MAX_SYMLINK_HOPS = 40;

/**
 * True when `candidate` is `root` or lies below it. Both must be absolute and
 * normalised; this only compares strings and never touches the file system.
 *
 * @example
 * isWithinRoot('/ws', '/ws/src/a.ts') // true
 * isWithinRoot('/ws', '/wsx/a.ts')    // false
 */
export function isWithinRoot(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

/**
 * Resolves `userPath` against `root` without touching the file system and
 * throws when the result lies outside every one of `roots` (a root may be
 * known under several names, e.g. its given path and its real path).
 *
 * @example
 * resolveLexically('/ws', 'src/../a.ts') // "/ws/a.ts"
 * resolveLexically('/ws', '../x')        // throws "Path '../x' is outside the workspace root /ws"
 * resolveLexically('/ws', '~/x')         // throws "Path '~/x' starts with '~', …" (no directory named '~' by mistake)
 */
export function resolveLexically(root: string, userPath: string, alsoAcceptedRoots: readonly string[] = []): string {
  if (userPath.includes('\0')) throw new Error(`Path '${userPath}' contains a NUL byte`);
  if (userPath === '~' || userPath.startsWith('~/') || userPath.startsWith(`~${path.sep}`)) {
    throw new Error(
      `Path '${userPath}' starts with '~', which is not a home directory here: it would be a directory named '~' in the workspace. ` +
        `Give a path relative to the workspace root (for a directory really named '~', write './${userPath}')`,
    );
  }
  const absoluteRoot = path.resolve(root);
  const resolved = path.resolve(absoluteRoot, userPath);
  const roots = [absoluteRoot, ...alsoAcceptedRoots];
  if (!roots.some((candidateRoot) => isWithinRoot(candidateRoot, resolved))) {
    throw new Error(`Path '${userPath}' is outside the workspace root ${absoluteRoot}`);
  }
  return resolved;
}

/**
 * Throws when a glob pattern is absolute or walks up with a `..` segment, so
 * that a pattern cannot reach outside the directory it is matched in.
 *
 * @example
 * assertGlobPatternStaysInside('src/**\/*.ts'); // ok
 * assertGlobPatternStaysInside('../**');        // throws
 */
export function assertGlobPatternStaysInside(pattern: string): void {
  if (path.isAbsolute(pattern) || /^[a-zA-Z]:[\\/]/.test(pattern)) {
    throw new Error(`Glob pattern '${pattern}' must be relative to the workspace, not absolute`);
  }
  if (/(^|[/\\{,])\.\.($|[/\\},])/.test(pattern)) {
    throw new Error(`Glob pattern '${pattern}' must not contain '..' segments; use the path parameter inside the workspace instead`);
  }
}

/**
 * Workspace-relative form of an absolute path below `root`, for display;
 * `'.'` for the root itself.
 *
 * @example
 * toWorkspaceRelative('/ws', '/ws/src/a.ts') // "src/a.ts"
 */
export function toWorkspaceRelative(root: string, absolutePath: string): string {
  return path.relative(root, absolutePath).split(path.sep).join('/') || '.';
}

/** Real path of the workspace root; throws a readable error when it does not exist. */
export async function realWorkspaceRoot(root: string): Promise<string> {
  const absoluteRoot = path.resolve(root);
  try {
    return await realpath(absoluteRoot);
  } catch (error) {
    throw new Error(`Workspace root ${absoluteRoot} is not accessible: ${errorCode(error) ?? String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Like `fs.realpath`, but also for paths that do not exist yet: the deepest
 * existing ancestor is resolved and the missing rest appended. Dangling
 * symbolic links are followed to their (missing) target, so writing through
 * one cannot create a file outside the workspace.
 */
export async function realpathAllowingMissing(absolutePath: string, symlinkHops = 0): Promise<string> {
  try {
    return await realpath(absolutePath);
  } catch (error) {
    if (!isMissingPathError(error)) throw error;
  }
  const parent = path.dirname(absolutePath);
  if (parent === absolutePath) return absolutePath;
  const realParent = await realpathAllowingMissing(parent, symlinkHops);
  const candidate = path.join(realParent, path.basename(absolutePath));
  const stats = await lstat(candidate).catch((error: unknown) => {
    if (isMissingPathError(error)) return undefined;
    throw error;
  });
  if (!stats?.isSymbolicLink()) return candidate;
  if (symlinkHops >= MAX_SYMLINK_HOPS) throw new Error(`Too many levels of symbolic links at ${candidate}`);
  const target = await readlink(candidate);
  return realpathAllowingMissing(path.resolve(realParent, target), symlinkHops + 1);
}

/**
 * Resolves a path given by the model to a real absolute path inside the
 * workspace `root`, or throws an `Error` that explains why it is refused:
 * a `../` escape, an absolute path outside the root, or a symbolic link
 * (anywhere along the path) that leads outside. The path need not exist.
 *
 * @example
 * const file = await resolveInWorkspace('/tmp/ws', 'src/index.ts');
 * // "/tmp/ws/src/index.ts"
 * await resolveInWorkspace('/tmp/ws', '../x');
 * // throws "Path '../x' is outside the workspace root /tmp/ws"
 */
export async function resolveInWorkspace(root: string, userPath: string): Promise<string> {
  const realRoot = await realWorkspaceRoot(root);
  const lexicalPath = resolveLexically(root, userPath, [realRoot]);
  const realPath = await realpathAllowingMissing(lexicalPath).catch((error: unknown) => {
    throw describeFsError(error, userPath);
  });
  if (!isWithinRoot(realRoot, realPath)) {
    throw new Error(
      `Path '${userPath}' resolves through a symbolic link to ${realPath}, which is outside the workspace root ${path.resolve(root)}`,
    );
  }
  return realPath;
}

/**
 * `resolveInWorkspace` for a tool that takes a file (read, write, edit): a
 * path ending in `/`, `/.` or `/..` names a directory, and resolving it would
 * drop that ending and take it as a file (`write` would create a file named `newdir`).
 *
 * @example
 * await resolveFileInWorkspace('/tmp/ws', 'notes/');
 * // throws "Path 'notes/' ends with '/', which names a directory; give the path of a file"
 * await resolveFileInWorkspace('/tmp/ws', 'a.txt/.');
 * // throws "Path 'a.txt/.' ends with '.', which names a directory; give the path of a file"
 */
export async function resolveFileInWorkspace(root: string, userPath: string): Promise<string> {
  if (userPath.endsWith('/') || userPath.endsWith(path.sep)) {
    throw new Error(`Path '${userPath}' ends with '/', which names a directory; give the path of a file`);
  }
  // Resolving drops a last `.` (and `..` with the name before it): `a.txt/.` would be taken for `a.txt`, `new/.` for a file `new`.
  const lastSegment = path.basename(userPath);
  if (lastSegment === '.' || lastSegment === '..') {
    throw new Error(`Path '${userPath}' ends with '${lastSegment}', which names a directory; give the path of a file`);
  }
  return resolveInWorkspace(root, userPath);
}

function isMissingPathError(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Where an open file descriptor really is (Linux's /proc); undefined where the system does not say. */
export async function openedPath(handle: FileHandle): Promise<string | undefined> {
  return readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
}

/**
 * Checks that an open file is inside the workspace: the path was checked
 * before it was opened, but a directory on it may have been swapped for a
 * link in between. What was opened is checked, not the name.
 * Returns the real path that was opened (undefined where the system does not say).
 * @throws Error when it is outside (the caller closes the handle); its `opened` is where it was.
 */
export async function assertOpenedInWorkspace(handle: FileHandle, realRoot: string, userPath: string): Promise<string | undefined> {
  const opened = await openedPath(handle);
  if (opened !== undefined && !isWithinRoot(realRoot, opened)) {
    throw Object.assign(new Error(`Path '${userPath}' led outside the workspace when it was opened (a directory on it was replaced by a link)`), { opened });
  }
  return opened;
}

/**
 * Opens a workspace file for reading, once, and verifies what was opened: a
 * regular file, inside the workspace. Opening does not block on a FIFO.
 * The caller closes the handle.
 *
 * @example
 * const handle = await openForReading(cwd, await resolveInWorkspace(cwd, 'a.txt'), 'a.txt');
 * try { return await handle.readFile('utf8'); } finally { await handle.close(); }
 */
export async function openForReading(root: string, file: string, userPath: string): Promise<FileHandle> {
  const realRoot = await realWorkspaceRoot(root);
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    await assertOpenedInWorkspace(handle, realRoot, userPath);
    if (!(await handle.stat()).isFile()) throw new Error(`Path '${userPath}' is not a regular file`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
