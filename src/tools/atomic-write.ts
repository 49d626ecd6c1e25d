import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { throwIfAborted } from './abort.js';
import { assertOpenedInWorkspace, realWorkspaceRoot } from './workspace.js';

const CHUNK = 1 << 20;

/**
 * Replaces `file` with `content` all at once: the content goes to a new
 * temporary file in the same directory, is flushed to disk, and is renamed
 * over the target. An abort, a crash or a full disk leaves the original file
 * whole (and no temporary file after an error or an abort). The replaced
 * file's permissions are kept; a new file gets the usual ones. A file this
 * process may not write (read-only, another user's) is refused (`EACCES`),
 * though the rename would replace it.
 *
 * With `workspace`, the temporary file is checked to be inside it once it is
 * open (a directory on the path may have been swapped for a link meanwhile).
 *
 * @throws the abort's error when `signal` aborts, or the file system's error.
 */
export async function writeFileAtomically(
  file: string,
  content: string | Uint8Array,
  options: { signal?: AbortSignal | undefined; workspace?: { root: string; userPath: string } } = {},
): Promise<void> {
  const { signal, workspace } = options;
  const realRoot = workspace ? await realWorkspaceRoot(workspace.root) : undefined;
  const existing = await stat(file).catch(() => undefined);
  // Renaming over a file needs only its directory to be writable: a read-only file is refused as a plain write would refuse it.
  if (existing) await access(file, constants.W_OK);
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const handle = await open(temporary, 'wx', existing ? existing.mode & 0o7777 : 0o666);
  // From here on the temporary file is named by where it really is: a directory on the path may be
  // swapped for a link later, and then renaming or removing by the old name could reach elsewhere.
  let where = temporary;
  let renamed = false;
  try {
    if (workspace && realRoot) {
      where = await assertOpenedInWorkspace(handle, realRoot, workspace.userPath).catch((error: unknown) => {
        where = (error as { opened?: string }).opened ?? where;
        throw error;
      }) ?? temporary;
    }
    for (let offset = 0; offset < bytes.length; ) {
      throwIfAborted(signal, 'write');
      const { bytesWritten } = await handle.write(bytes, offset, Math.min(CHUNK, bytes.length - offset));
      offset += bytesWritten;
    }
    if (existing) await handle.chmod(existing.mode & 0o7777);
    await handle.sync();
    await handle.close();
    throwIfAborted(signal, 'write');
    // Into the directory the temporary file really is in: if that path no longer leads there, the rename fails.
    await rename(where, path.join(path.dirname(where), path.basename(file)));
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(where).catch(() => undefined);
    }
  }
}
