import { randomBytes } from 'node:crypto';
import { constants, type BigIntStats } from 'node:fs';
import { access, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { throwIfAborted } from './abort.js';
import { utf8Prefix } from './truncate.js';
import { assertOpenedInWorkspace, realWorkspaceRoot } from './workspace.js';

const CHUNK = 1 << 20;
/** Bytes of the file's name kept in its temporary file's name, which adds 18 to them: a name may be 255 bytes long. */
const NAME_BYTES_IN_TEMPORARY_NAME = 200;

/** The file was changed by someone else after it was read, so writing what was made from it would undo that change. */
export class FileChangedError extends Error {
  override readonly name = 'FileChangedError';
}

/**
 * Replaces `file` with `content` all at once: the content goes to a new
 * temporary file in the same directory, is flushed to disk, and is renamed
 * over the target. An abort, a crash or a full disk leaves the original file
 * whole (and no temporary file after an error or an abort). The replaced
 * file's permissions are kept, and its owner and group where this process may
 * set them (as root; a group of its own otherwise); a new file gets the usual
 * ones. A file this process may not write (read-only, another user's) is
 * refused (`EACCES`), though the rename would replace it.
 *
 * With `workspace`, the temporary file is checked to be inside it once it is
 * open (a directory on the path may have been swapped for a link meanwhile).
 *
 * With `unchangedSince` (the `{ bigint: true }` stats of the file when it was
 * read), the file is checked just before the rename to be the same file with
 * the same size and change times; otherwise nothing is written and
 * `FileChangedError` is thrown. (A change within the file system's timestamp
 * tick that keeps the size can pass, as it does in editors that check this.)
 *
 * @example
 * const before = await stat(file, { bigint: true });
 * const text = await readFile(file, 'utf8');
 * await writeFileAtomically(file, text.toUpperCase(), { unchangedSince: before });
 * @throws the abort's error when `signal` aborts, `FileChangedError`, or the file system's error.
 */
export async function writeFileAtomically(
  file: string,
  content: string | Uint8Array,
  options: { signal?: AbortSignal | undefined; workspace?: { root: string; userPath: string }; unchangedSince?: BigIntStats } = {},
): Promise<void> {
  const { signal, workspace, unchangedSince } = options;
  const realRoot = workspace ? await realWorkspaceRoot(workspace.root) : undefined;
  const existing = await stat(file).catch(() => undefined);
  // Renaming over a file needs only its directory to be writable: a read-only file is refused as a plain write would refuse it.
  if (existing) await access(file, constants.W_OK);
  const temporary = path.join(path.dirname(file), temporaryName(path.basename(file)));
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
    if (existing) {
      // Replaced by a new file, the old one's owner would become this process's user: root (a container's agent) would take over the user's file.
      // Only root may give a file away, and a user a group of its own; where neither is allowed the new file stays this process's.
      if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) await handle.chown(existing.uid, existing.gid).catch(() => undefined);
      // After chown, which clears the set-user-ID and set-group-ID bits.
      await handle.chmod(existing.mode & 0o7777);
    }
    await handle.sync();
    await handle.close();
    throwIfAborted(signal, 'write');
    // Into the directory the temporary file really is in: if that path no longer leads there, the rename fails.
    const target = path.join(path.dirname(where), path.basename(file));
    if (unchangedSince) await assertUnchanged(target, unchangedSince, workspace?.userPath ?? file);
    await rename(where, target);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(where).catch(() => undefined);
    }
  }
}

async function assertUnchanged(file: string, before: BigIntStats, userPath: string): Promise<void> {
  const now = await stat(file, { bigint: true }).catch(() => undefined);
  const same =
    now !== undefined &&
    now.ino === before.ino &&
    now.dev === before.dev &&
    now.size === before.size &&
    now.mtimeNs === before.mtimeNs &&
    now.ctimeNs === before.ctimeNs;
  if (!same) {
    throw new FileChangedError(
      `File '${userPath}' was ${now === undefined ? 'removed' : 'changed'} by something else after it was read; nothing was written, so that change is kept. Read the file again and redo the change`,
    );
  }
}

/**
 * `.name.<random>.tmp`, with `name` cut to 200 bytes: the full name of a file
 * with a long name would make one longer than a name may be (`ENAMETOOLONG`).
 */
function temporaryName(name: string): string {
  return `.${utf8Prefix(name, NAME_BYTES_IN_TEMPORARY_NAME)}.${randomBytes(6).toString('hex')}.tmp`;
}
