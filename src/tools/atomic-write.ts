import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { throwIfAborted } from './abort.js';

const CHUNK = 1 << 20;

/**
 * Replaces `file` with `content` all at once: the content goes to a new
 * temporary file in the same directory, is flushed to disk, and is renamed
 * over the target. An abort, a crash or a full disk leaves the original file
 * whole (and no temporary file after an error or an abort). The replaced
 * file's permissions are kept; a new file gets the usual ones.
 *
 * @throws the abort's error when `signal` aborts, or the file system's error.
 */
export async function writeFileAtomically(file: string, content: string | Uint8Array, signal?: AbortSignal): Promise<void> {
  const existing = await stat(file).catch(() => undefined);
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const handle = await open(temporary, 'wx', existing ? existing.mode & 0o7777 : 0o666);
  let renamed = false;
  try {
    for (let offset = 0; offset < bytes.length; ) {
      throwIfAborted(signal, 'write');
      const { bytesWritten } = await handle.write(bytes, offset, Math.min(CHUNK, bytes.length - offset));
      offset += bytesWritten;
    }
    if (existing) await handle.chmod(existing.mode & 0o7777);
    await handle.sync();
    await handle.close();
    throwIfAborted(signal, 'write');
    await rename(temporary, file);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
    }
  }
}
