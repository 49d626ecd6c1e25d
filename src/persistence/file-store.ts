import { closeSync, constants, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { constants as bufferConstants } from 'node:buffer';
import path from 'node:path';
import { z } from 'zod';
import { assertSessionId } from './session-id.js';
import { refuseMovedRedactOption } from '../secrets/moved-secrets-option.js';
import { decodeLog, encodeLine } from './jsonl.js';
import { withFileLock } from './file-lock.js';
import { leaseRules, type LeaseRow } from './lease-rules.js';
import {
  SessionConflictError,
  SessionFormatError,
  SessionMissingError,
  type AppendOptions,
  type SessionHeader,
  type SessionLease,
  type SessionLeases,
  type SessionLog,
  type SessionRecord,
  type SessionStore,
  type SessionVersion,
} from './session-store.js';
import { parseOptions } from '../core/options-check.js';

export interface FileStoreOptions {
  /** fsync after every append, for durability against power loss (a killed process needs only the write). Default false. */
  fsync?: boolean;
}

const fileStoreOptionsSchema = z.strictObject({ fsync: z.boolean().optional() });

/** Session files hold conversations and tool output: only their owner may read them. */
const FILE_MODE = 0o600;
/** The longest string Node makes: a session file is decoded as one. */
const { MAX_STRING_LENGTH } = bufferConstants;
const DIR_MODE = 0o700;

/**
 * A crash mid-write can leave a last line without its newline. If that line
 * is a whole record, the reader keeps it, and so does the writer: it adds the
 * newline. If it is cut off, the reader skips it, and the writer cuts it, or
 * the next record would be glued to it and the file could no longer be read.
 */
function settleTail(fd: number): void {
  const size = fstatSync(fd).size;
  if (!endsCutShort(fd, size)) return;
  const text = readFileSync(fd);
  const lineStart = text.lastIndexOf(0x0a) + 1;
  if (isJson(text.subarray(lineStart).toString('utf8'))) writeAll(fd, Buffer.from('\n'), size);
  else ftruncateSync(fd, lineStart);
}

/**
 * Whether all the file holds past `after` (a version a writer read or wrote,
 * so a line boundary) is one line without its newline that is no record: what
 * a write cut short leaves — a full disk, or a process killed mid-write. No
 * other writer completed a record since `after`, so appending is no conflict.
 */
function isCutShortWriteAfter(fd: number, after: number, size: number): boolean {
  if (size <= after) return false;
  const tail = Buffer.alloc(size - after);
  readSync(fd, tail, 0, tail.length, after);
  return !tail.includes(0x0a) && !isJson(tail.toString('utf8'));
}

/** Whether the file's last byte is not a newline: its last line was cut short. */
function endsCutShort(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function writeAll(fd: number, bytes: Buffer, position?: number): void {
  for (let written = 0; written < bytes.length; ) {
    written += writeSync(fd, bytes, written, bytes.length - written, position === undefined ? null : position + written);
  }
}

/** A lease file as this loopchart writes it (the rest of its fields kept as they are). */
const leaseRowSchema = z.looseObject({ owner: z.string(), epoch: z.number().int().nonnegative(), expiresAt: z.number().refine(Number.isFinite, 'expected a time in ms') });

/** What a path that is not a regular file is, in words; undefined for a regular file. */
function fileKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  return 'device';
}

function fileOf(dir: string, sessionId: string): string {
  assertSessionId(sessionId);
  return path.join(dir, `${sessionId}.jsonl`);
}

/**
 * The embedded session store: one append-only JSONL file per session in
 * `dir` (created when missing, readable by its owner only). Appending a step
 * writes its new lines at the end of the file — nothing is ever rewritten —
 * and returns once the write reached the operating system.
 *
 * One writer at a time: a session's version is its file's size. An append
 * that passes the size it last read or wrote (`after`, as the agent does) is
 * refused with `SessionConflictError` when the file has changed since —
 * another agent or process wrote to the session — and writes nothing. The
 * check and the write happen under a short lock file (`<id>.jsonl.lock`), so
 * two processes cannot both pass it; a lock left by a killed process is taken
 * over.
 *
 * Leases (`store.leases`, used by `createAgent({ lease })` and `advanceSession`) live beside the
 * session in `<id>.jsonl.lease` and are read and changed under the same lock as appends, so a
 * fenced append (`epoch`) and an acquisition by another process cannot interleave. Expiry is by
 * this machine's clock: processes sharing the directory share the clock.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools, store: fileStore('.sessions'), sessionId: 'chat-42' });
 * ```
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): SessionStore {
  refuseMovedRedactOption(options, 'fileStore');
  parseOptions('fileStore', fileStoreOptionsSchema, options);
  const encode = (records: Array<SessionHeader | SessionRecord>) => Buffer.from(records.map(encodeLine).join(''));
  return {
    async read(sessionId: string): Promise<SessionLog | undefined> {
      const file = fileOf(dir, sessionId);
      let handle: FileHandle;
      try {
        // Without blocking: a FIFO is refused below instead of waited on for ever.
        handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      let bytes: Buffer;
      try {
        const stats = await handle.stat();
        const kind = fileKind(stats);
        if (kind !== undefined) {
          throw new SessionFormatError(`${file} is a ${kind}, not a session file: move it out of the store's directory, or use another session id`);
        }
        // Read whole and decoded as one string: past Node's longest string, that fails with an error that names no file, after the read.
        const { size } = stats;
        if (size > MAX_STRING_LENGTH) {
          throw new SessionFormatError(`${file} is ${size} bytes, more than this loopchart reads whole (${MAX_STRING_LENGTH} bytes): start a new session to go on`);
        }
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
      const log = decodeLog(bytes.toString('utf8'), file);
      if (log.header.sessionId !== sessionId) {
        log.warnings.push(`${file}: its header names session ${JSON.stringify(log.header.sessionId)}, not "${sessionId}": the file was renamed or copied; it is read as session ${sessionId}`);
      }
      return { ...log, version: bytes.length };
    },
    async create(header: SessionHeader): Promise<SessionVersion> {
      const file = fileOf(dir, header.sessionId);
      mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE });
      const bytes = encode([header]);
      let fd: number;
      try {
        fd = openSync(file, 'wx', FILE_MODE);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`session ${header.sessionId} exists already (${file})`, { cause: error });
        throw error;
      }
      try {
        writeAll(fd, bytes);
        if (options.fsync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return bytes.length;
    },
    leases: fileLeases(dir),
    async append(sessionId: string, records: SessionRecord[], appendOptions: AppendOptions = {}): Promise<SessionVersion | void> {
      const file = fileOf(dir, sessionId);
      return withFileLock(`${file}.lock`, () => {
        leaseRules.checkWrite(sessionId, readLease(file), appendOptions.epoch, Date.now());
        let fd: number;
        try {
          // No O_CREAT: a session file deleted while open is not recreated without its header.
          fd = openSync(file, constants.O_RDWR | constants.O_APPEND);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            throw new SessionMissingError(`session ${sessionId}: ${file} is gone (deleted while the session was open); nothing was written, and it is not recreated`);
          }
          throw error;
        }
        try {
          const size = fstatSync(fd).size;
          const after = appendOptions.after;
          const cutShort = typeof after === 'number' && isCutShortWriteAfter(fd, after, size);
          if (after !== undefined && size !== after && !cutShort) {
            throw new SessionConflictError(
              endsCutShort(fd, size)
                ? `session ${sessionId} changed since this writer's last write and ends in a line cut short (${file} is ${size} bytes, expected ${String(after)}): a write was stopped part way, by a full disk or a killed process; nothing was written: open the session again to continue it`
                : `session ${sessionId} was written by another writer since this one read it (${file} is ${size} bytes, expected ${String(after)}); nothing was written: open the session again to continue it`,
            );
          }
          // What a write cut short left after this writer's version is no record: it goes, and the records are written again.
          if (cutShort) ftruncateSync(fd, after);
          if (records.length === 0) return fstatSync(fd).size;
          settleTail(fd);
          const start = fstatSync(fd).size;
          try {
            writeAll(fd, encode(records));
            if (options.fsync) fsyncSync(fd);
          } catch (error) {
            // A full disk stops a write part way: the part goes, so the file ends where it did and the next append starts clean.
            try {
              ftruncateSync(fd, start);
            } catch {
              // The next append finds the cut-short line and cuts it (isCutShortWriteAfter).
            }
            throw error;
          }
          return fstatSync(fd).size;
        } finally {
          closeSync(fd);
        }
      });
    },
  };
}

/** The session's lease, read under the session's lock (so it cannot appear or vanish in between); undefined when none was ever taken. */
function readLease(file: string): LeaseRow | undefined {
  const leaseFile = `${file}.lease`;
  // Most sessions never take a lease: a stat is cheaper on every append than a failed read's exception.
  if (!existsSync(leaseFile)) return undefined;
  const refuse = (problem: string) => new SessionFormatError(`${leaseFile}: not a lease this loopchart wrote: ${problem}: delete it to free the session once no process works on it`);
  // Without blocking: this read runs on the event loop, which a FIFO would hold for ever.
  const fd = openSync(leaseFile, constants.O_RDONLY | constants.O_NONBLOCK);
  let text: string;
  try {
    const kind = fileKind(fstatSync(fd));
    if (kind !== undefined) throw refuse(`it is a ${kind}`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let row: unknown;
  try {
    row = JSON.parse(text) as unknown;
  } catch {
    throw refuse(`it is not JSON (${JSON.stringify(text.slice(0, 40))})`);
  }
  // A row of the wrong shape would be misread, not refused: an epoch "3" acquired again is "31", and a row without one starts the epochs again at 1, letting an older writer's fenced appends through.
  const parsed = leaseRowSchema.safeParse(row);
  if (!parsed.success) throw refuse(parsed.error.issues.map((issue) => (issue.path.length > 0 ? `its ${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; '));
  return row as LeaseRow;
}

/** Written whole and renamed into place, so a reader never sees half a lease. */
function writeLease(file: string, row: LeaseRow): void {
  const temporary = `${file}.lease.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(row), { mode: FILE_MODE });
  renameSync(temporary, `${file}.lease`);
}

function fileLeases(dir: string): SessionLeases {
  const underLock = <T>(sessionId: string, change: (file: string) => T): T => {
    const file = fileOf(dir, sessionId);
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    return withFileLock(`${file}.lock`, () => change(file));
  };
  const toRow = (lease: SessionLease): LeaseRow => ({ owner: lease.owner, epoch: lease.epoch, expiresAt: lease.expiresAt });
  return {
    async acquire(sessionId, owner, ttlMs) {
      return underLock(sessionId, (file) => {
        const lease = leaseRules.acquire(sessionId, readLease(file), owner, ttlMs, Date.now());
        writeLease(file, toRow(lease));
        return lease;
      });
    },
    async renew(lease, ttlMs) {
      return underLock(lease.sessionId, (file) => {
        const renewed = leaseRules.renew(readLease(file), lease, ttlMs, Date.now());
        writeLease(file, toRow(renewed));
        return renewed;
      });
    },
    async release(lease) {
      underLock(lease.sessionId, (file) => {
        const released = leaseRules.release(readLease(file), lease);
        if (released) writeLease(file, released);
      });
    },
  };
}
