import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTool } from '../../src/tools/write.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('write tool', () => {
  const ws = useTempWorkspace();
  const write = (input: object, signal?: AbortSignal) => runTool(writeTool({ cwd: ws.root }), input, signal);

  it('creates the file and its parent directories and reports the byte count', async () => {
    await expect(write({ path: 'deep/dir/a.txt', content: 'héllo' })).resolves.toBe('Wrote 6 bytes to deep/dir/a.txt');
    await expect(readFile(path.join(ws.root, 'deep/dir/a.txt'), 'utf8')).resolves.toBe('héllo');
  });

  it('overwrites an existing file', async () => {
    await ws.file('a.txt', 'old content');
    await write({ path: 'a.txt', content: 'new' });
    await expect(readFile(path.join(ws.root, 'a.txt'), 'utf8')).resolves.toBe('new');
  });

  it('refuses to write over a directory', async () => {
    await mkdir(path.join(ws.root, 'src'));
    await expect(write({ path: 'src', content: 'x' })).rejects.toThrow("Path 'src' is a directory; cannot write a file there");
  });

  it('reports a parent path that is a file', async () => {
    await ws.file('a.txt', 'x');
    await expect(write({ path: 'a.txt/b.txt', content: 'x' })).rejects.toThrow(
      "Cannot create the parent directories of 'a.txt/b.txt': part of that path is an existing file",
    );
  });

  it('does not write once aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(write({ path: 'a.txt', content: 'x' }, controller.signal)).rejects.toThrow('write was aborted');
  });
});
