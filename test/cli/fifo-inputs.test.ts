import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkExpectations } from '../../src/cli/expectations.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { prepareWorkspace } from '../../src/cli/workspace-setup.js';
import type { RunResult } from '../../src/core/result.js';

describe('a FIFO named by a script is refused at once, never waited on', () => {
  let cwd = '';
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(os.tmpdir(), 'loopchart-fifo-'));
    execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
  });
  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('expect.files naming a FIFO is a failed expectation that says it is not a regular file', async () => {
    const result = { outcome: 'completed', text: '' } as RunResult;
    await expect(checkExpectations({ files: { pipe: 'x' } }, result, cwd)).resolves.toEqual(["files.pipe: Path 'pipe' is not a regular file"]);
  });

  it('expect.files still compares regular files and reports missing ones', async () => {
    await prepareWorkspace({ cwd, fallback: 'current', files: { 'a.txt': 'yes' } });
    const result = { outcome: 'completed', text: '' } as RunResult;
    await expect(checkExpectations({ files: { 'a.txt': 'yes', 'gone.txt': '' } }, result, cwd)).resolves.toEqual(['files.gone.txt: missing']);
  });

  it('files: naming a FIFO is a usage error, and nothing is written through it', async () => {
    const setup = prepareWorkspace({ cwd, fallback: 'current', files: { pipe: 'content' } });
    await expect(setup).rejects.toBeInstanceOf(UsageError);
    await expect(setup).rejects.toThrow(`the script's files.pipe cannot be created: ${path.join(cwd, 'pipe')} exists and is not a regular file`);
  });

  it('files: writes regular files, replacing what was there', async () => {
    await prepareWorkspace({ cwd, fallback: 'current', files: { 'a.txt': 'a much longer first text' } });
    await prepareWorkspace({ cwd, fallback: 'current', files: { 'a.txt': 'short', 'sub/b.txt': 'b' } });
    await expect(readFile(path.join(cwd, 'a.txt'), 'utf8')).resolves.toBe('short');
    await expect(readFile(path.join(cwd, 'sub/b.txt'), 'utf8')).resolves.toBe('b');
  });
});
