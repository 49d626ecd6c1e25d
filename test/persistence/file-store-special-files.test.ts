import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, fileStore, SessionFormatError } from '../../src/index.js';
import { mockModel } from '../support/mock-model.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'loopchart-special-files-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

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
    const fifo = path.join(dir, 'piped.jsonl');
    execFileSync('mkfifo', [fifo]);
    try {
      const read = fileStore(dir).read('piped');
      await expect(read).rejects.toThrow(SessionFormatError);
      await expect(read).rejects.toThrow(`${fifo} is a FIFO, not a session file`);
      const agent = createAgent({ model: mockModel([]), store: fileStore(dir), sessionId: 'piped' });
      await expect(agent.ready()).rejects.toThrow(`${fifo} is a FIFO, not a session file`);
      await agent.dispose();
    } finally {
      releaseFifo(fifo);
    }
  });

  it('refuses a directory by name (the operating system says EISDIR without the path)', async () => {
    const directory = path.join(dir, 'folder.jsonl');
    mkdirSync(directory);
    await expect(fileStore(dir).read('folder')).rejects.toThrow(new SessionFormatError(`${directory} is a directory, not a session file: move it out of the store's directory, or use another session id`));
  });
});
