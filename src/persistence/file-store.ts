import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeLog, encodeLine } from './jsonl.js';
import type { SessionHeader, SessionLog, SessionRecord, SessionStore } from './session-store.js';

export interface FileStoreOptions {
  /** fsync after every append, for durability against power loss (a killed process needs only the write). Default false. */
  fsync?: boolean;
}

/**
 * A crash mid-write can leave a last line without its newline. Reading skips
 * it; before anything is appended it must go, or the next record would be
 * glued to it and the file could no longer be read.
 */
function cutTornTail(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    const text = readFileSync(fd);
    ftruncateSync(fd, text.lastIndexOf(0x0a) + 1);
  } finally {
    closeSync(fd);
  }
}

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

function fileOf(dir: string, sessionId: string): string {
  if (!SESSION_ID.test(sessionId) || sessionId.startsWith('.')) {
    throw new TypeError(`Invalid session id "${sessionId}": use 1-128 letters, digits, dots, dashes or underscores, not starting with a dot.`);
  }
  return path.join(dir, `${sessionId}.jsonl`);
}

/**
 * The embedded session store: one append-only JSONL file per session in
 * `dir` (created when missing). Appending a step writes its new lines at the
 * end of the file — nothing is ever rewritten — and returns once the write
 * reached the operating system.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools, store: fileStore('.sessions'), sessionId: 'chat-42' });
 * ```
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): SessionStore {
  const writeLines = (file: string, text: string, flags: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    const fd = openSync(file, flags);
    try {
      const bytes = Buffer.from(text);
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  return {
    async read(sessionId: string): Promise<SessionLog | undefined> {
      const file = fileOf(dir, sessionId);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      return decodeLog(text, file);
    },
    async create(header: SessionHeader): Promise<void> {
      writeLines(fileOf(dir, header.sessionId), encodeLine(header), 'wx');
    },
    async append(sessionId: string, records: SessionRecord[]): Promise<void> {
      if (records.length === 0) return;
      const file = fileOf(dir, sessionId);
      cutTornTail(file);
      writeLines(file, records.map(encodeLine).join(''), 'a');
    },
  };
}
