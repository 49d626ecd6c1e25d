import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

const WAIT_MS = 2;
const GIVE_UP_MS = 5_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Whether the process that wrote a lock file is gone (on this machine). */
function holderIsGone(lockFile: string): boolean {
  let pid: number;
  try {
    pid = Number((JSON.parse(readFileSync(lockFile, 'utf8')) as { pid?: unknown }).pid);
  } catch {
    // Empty or gone: just created (not yet filled), just released, or its writer died in between.
    try {
      return Date.now() - statSync(lockFile).mtimeMs > 1_000;
    } catch {
      return true;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Runs `section` (synchronous, short) while holding `lockFile`, created
 * exclusively with this process's pid in it. Another holder is waited for a
 * few milliseconds at a time; a lock whose process is gone (killed while
 * holding it) is taken over. Throws when the lock stays held for 5 s.
 */
export function withFileLock<T>(lockFile: string, section: () => T): T {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lockFile, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid }));
        closeSync(fd);
        return section();
      } finally {
        unlinkSync(lockFile);
      }
    }
    if (holderIsGone(lockFile)) {
      try {
        unlinkSync(lockFile);
      } catch {
        // Someone else took it over first.
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lockFile} has been held by another process for ${GIVE_UP_MS / 1000} s`);
    Atomics.wait(pause, 0, 0, WAIT_MS);
  }
}
