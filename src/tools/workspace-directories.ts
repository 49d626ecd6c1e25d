import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rmdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './fs-errors.js';
import { isWithinRoot, openedPath, realWorkspaceRoot } from './workspace.js';

/** A part of the path exists and is not a directory (a file, a FIFO). */
export class NotADirectoryError extends Error {
  override readonly name = 'NotADirectoryError';
}

/**
 * Creates the missing directories of `directory` (a real path inside the
 * workspace, as `resolveInWorkspace` gives it), one level at a time, each
 * relative to the directory above it as it was opened — `mkdir -p` that a
 * directory swapped for a link meanwhile cannot lead outside. Node has no
 * `mkdirat`; on Linux `/proc/self/fd/N/name` names `name` inside the
 * directory open as descriptor N, whatever its path has become, which is the
 * same thing. Each level is then opened without following a link and checked
 * to be inside the workspace, and a level this call created that turns out to
 * be outside (its parent was moved out meanwhile) is removed again. Where
 * there is no /proc, levels are created by path and checked by their real
 * path afterwards, with the same undo.
 *
 * @example
 * await makeDirectoriesInWorkspace('/tmp/ws', await resolveInWorkspace('/tmp/ws', 'a/b/c'), 'a/b/c');
 * @throws NotADirectoryError when a part of the path is an existing file;
 *   Error when a level is a link or leads outside the workspace.
 */
export async function makeDirectoriesInWorkspace(root: string, directory: string, userPath: string): Promise<void> {
  const realRoot = await realWorkspaceRoot(root);
  if (!isWithinRoot(realRoot, directory)) throw new Error(`Path '${userPath}' is outside the workspace root ${path.resolve(root)}`);
  const names = path.relative(realRoot, directory).split(path.sep).filter((name) => name !== '');
  let parent = await openDirectory(realRoot);
  let parentPath = realRoot;
  try {
    const byDescriptor = (await openedPath(parent)) !== undefined;
    for (const name of names) {
      const level = byDescriptor ? `/proc/self/fd/${parent.fd}/${name}` : path.join(parentPath, name);
      const created = await mkdir(level).then(
        () => true,
        (error: unknown) => {
          if (errorCode(error) === 'EEXIST') return false;
          throw error;
        },
      );
      const child = await openDirectory(level).catch(async (error: unknown) => {
        const code = errorCode(error);
        // Linux says ENOTDIR for a link opened with O_NOFOLLOW | O_DIRECTORY, other systems ELOOP.
        const isLink = code === 'ELOOP' || (code === 'ENOTDIR' && (await lstat(level).catch(() => undefined))?.isSymbolicLink() === true);
        if (isLink) throw new Error(`Path '${userPath}' changed while its directories were created (a directory on it was replaced by a link)`, { cause: error });
        if (code === 'ENOTDIR') throw new NotADirectoryError(`part of the path '${userPath}' is an existing file`, { cause: error });
        throw error;
      });
      const where = byDescriptor ? await openedPath(child) : await realpath(path.join(parentPath, name)).catch(() => undefined);
      if (where === undefined || !isWithinRoot(realRoot, where)) {
        await child.close();
        if (created) await rmdir(level).catch(() => undefined);
        throw new Error(`Path '${userPath}' led outside the workspace while its directories were created (a directory on it was moved or replaced by a link)`);
      }
      await parent.close();
      parent = child;
      parentPath = where;
    }
  } finally {
    await parent.close().catch(() => undefined);
  }
}

/** Never through a link, and never waiting on a FIFO. */
function openDirectory(directory: string): Promise<FileHandle> {
  return open(directory, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
}
