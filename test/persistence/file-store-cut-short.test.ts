import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeLine } from '../../src/persistence/jsonl.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { sessionHeader, type SessionRecord } from '../../src/persistence/session-store.js';

// A disk that fills up: once `disk.freeBytes` is set, writes stop there with ENOSPC, as write(2) does.
const disk = vi.hoisted(() => ({ freeBytes: undefined as number | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const writeSync = (fd: number, buffer: Uint8Array, offset?: number, length?: number, position?: number | null): number => {
    const wanted = length ?? buffer.length - (offset ?? 0);
    if (disk.freeBytes === undefined) return actual.writeSync(fd, buffer, offset, wanted, position);
    if (disk.freeBytes === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const written = actual.writeSync(fd, buffer, offset, Math.min(wanted, disk.freeBytes), position);
    disk.freeBytes -= written;
    return written;
  };
  return { ...actual, writeSync, default: { ...actual, writeSync } };
});

/** fileStore's version of a new session: the file's size. */
async function created(store: ReturnType<typeof fileStore>): Promise<number> {
  const version = await store.create(sessionHeader('s'));
  if (typeof version !== 'number') throw new Error('fileStore gave no version');
  return version;
}

const message = (index: number, content: string): SessionRecord => ({ type: 'message', index, message: { role: 'user', content } as ModelMessage });

describe('fileStore after a write cut short', () => {
  let dir = '';
  let file = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'loopchart-cut-short-'));
    file = path.join(dir, 's.jsonl');
    disk.freeBytes = undefined;
  });
  afterEach(() => {
    disk.freeBytes = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write stopped part way by a full disk is undone, and the next append writes the same records whole', async () => {
    const store = fileStore(dir);
    const version = await created(store);
    const before = readFileSync(file, 'utf8');
    disk.freeBytes = 20;
    await expect(store.append('s', [message(0, 'hello'), message(1, 'world')], { after: version })).rejects.toThrow('ENOSPC');
    expect(readFileSync(file, 'utf8')).toBe(before);
    disk.freeBytes = undefined;
    await store.append('s', [message(0, 'hello'), message(1, 'world')], { after: version });
    const log = await store.read('s');
    expect(log?.records).toEqual([message(0, 'hello'), message(1, 'world')]);
    expect(log?.warnings).toEqual([]);
  });

  it("an append past a line cut short after this writer's version writes its records, and the torn line is gone", async () => {
    const store = fileStore(dir);
    const version = await created(store);
    // What a full disk leaves when the write could not be undone either: part of a line.
    appendFileSync(file, encodeLine(message(0, 'hello')).slice(0, 20));
    await store.append('s', [message(0, 'hello')], { after: version });
    const log = await store.read('s');
    expect(log?.records).toEqual([message(0, 'hello')]);
    expect(log?.warnings).toEqual([]);
  });

  it('a file that changed since and ends in a cut-short line is refused with a message that says a write was stopped part way, not another writer', async () => {
    const store = fileStore(dir);
    const version = await created(store);
    appendFileSync(file, encodeLine(message(0, 'hello')) + encodeLine(message(1, 'world')).slice(0, 20));
    const append = store.append('s', [message(0, 'hello')], { after: version });
    await expect(append).rejects.toThrow(/ends in a line cut short .*: a write was stopped part way, by a full disk or a killed process/);
    await expect(append).rejects.not.toThrow(/another writer/);
  });

  it('a complete record another writer added is still a conflict with another writer', async () => {
    const store = fileStore(dir);
    const version = await created(store);
    appendFileSync(file, encodeLine(message(0, 'theirs')));
    await expect(store.append('s', [message(0, 'mine')], { after: version })).rejects.toThrow(/written by another writer/);
  });
});
