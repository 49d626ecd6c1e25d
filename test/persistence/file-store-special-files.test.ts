import { execFileSync } from 'node:child_process';
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, fileStore, SessionFormatError } from '../../src/index.js';
import { sessionHeader } from '../../src/persistence/session-store.js';
import { mockModel } from '../support/mock-model.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-special-files-');

/** Lets a read that opened the FIFO go (it sees the end of the file), so a test that fails does not leave it waiting. */
function releaseFifo(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody has it open for reading.
  }
}

describe('fileStore: a session path that is not a regular file', () => {
  it('refuses a FIFO by name instead of waiting for a writer for ever', async () => {
    const fifo = path.join(dir(), 'piped.jsonl');
    execFileSync('mkfifo', [fifo]);
    try {
      const read = fileStore(dir()).read('piped');
      await expect(read).rejects.toThrow(SessionFormatError);
      await expect(read).rejects.toThrow(`${fifo} is a FIFO, not a session file`);
      const agent = createAgent({ model: mockModel([]), store: fileStore(dir()), sessionId: 'piped' });
      await expect(agent.ready()).rejects.toThrow(`${fifo} is a FIFO, not a session file`);
      await agent.dispose();
    } finally {
      releaseFifo(fifo);
    }
  });

  it('refuses a directory by name (the operating system says EISDIR without the path)', async () => {
    const directory = path.join(dir(), 'folder.jsonl');
    mkdirSync(directory);
    await expect(fileStore(dir()).read('folder')).rejects.toThrow(new SessionFormatError(`${directory} is a directory, not a session file: move it out of the store's directory, or use another session id`));
  });
});

describe('fileStore: a lease file that is not a lease', () => {
  it.each([
    ['not JSON', '{"owner":"w', /is not JSON/],
    ['an epoch that is text (the next acquisition would make it "31")', '{"owner":"w","epoch":"3","expiresAt":0}', /its epoch: Invalid input: expected number, received string/],
    ['an empty object (the next acquisition would start the epochs again at 1, unfencing older writers)', '{}', /its owner: Invalid input: expected string, received undefined; its epoch: .*; its expiresAt: /],
    ['null', 'null', /: Invalid input: expected object, received null: /],
  ])('is refused by name (%s) as a lease is taken and as a session is written', async (_name, text, problem) => {
    const store = fileStore(dir());
    await store.create(sessionHeader('leased'));
    const leaseFile = path.join(dir(), 'leased.jsonl.lease');
    writeFileSync(leaseFile, text);
    const expected = new RegExp(`^${leaseFile.replaceAll('.', '\\.')}: not a lease this loopchart wrote: .*: delete it to free the session once no process works on it$`);
    await expect(store.leases!.acquire('leased', 'w', 1_000)).rejects.toThrow(SessionFormatError);
    await expect(store.leases!.acquire('leased', 'w', 1_000)).rejects.toThrow(expected);
    await expect(store.leases!.acquire('leased', 'w', 1_000)).rejects.toThrow(problem);
    await expect(store.append('leased', [{ type: 'message', index: 0, message: { role: 'user', content: 'hi' } }])).rejects.toThrow(expected);
  });

  it('is refused by name when it is a FIFO, instead of holding the event loop for ever', async () => {
    const store = fileStore(dir());
    await store.create(sessionHeader('piped-lease'));
    const leaseFile = path.join(dir(), 'piped-lease.jsonl.lease');
    execFileSync('mkfifo', [leaseFile]);
    await expect(store.append('piped-lease', [])).rejects.toThrow(`${leaseFile}: not a lease this loopchart wrote: it is a FIFO: delete it`);
  });
});

describe('fileStore: a session file too large to read whole', () => {
  it('is refused by name and size before any of it is read (Node would fail without naming it)', async () => {
    const huge = path.join(dir(), 'huge.jsonl');
    // Sparse: the size without the disk space or the memory.
    const fd = openSync(huge, 'w');
    try {
      ftruncateSync(fd, 3 * 1024 ** 3);
    } finally {
      closeSync(fd);
    }
    await expect(fileStore(dir()).read('huge')).rejects.toThrow(
      new SessionFormatError(`${huge} is 3221225472 bytes, more than this loopchart reads whole (${bufferConstants.MAX_STRING_LENGTH} bytes): start a new session to go on`),
    );
  });
});
