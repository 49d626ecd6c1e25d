import { readdir, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectoriesInWorkspace, NotADirectoryError } from '../../src/tools/workspace-directories.js';
import { useTempWorkspace } from './helpers.js';

describe('makeDirectoriesInWorkspace', () => {
  const ws = useTempWorkspace();

  it('creates every missing level and keeps the ones that exist', async () => {
    await ws.file('a/keep.txt', '');
    await makeDirectoriesInWorkspace(ws.root, path.join(ws.root, 'a/b/c'), 'a/b/c');
    expect((await stat(path.join(ws.root, 'a/b/c'))).isDirectory()).toBe(true);
    expect(await readdir(path.join(ws.root, 'a'))).toEqual(['b', 'keep.txt']);
  });

  it('refuses a level that is an existing file', async () => {
    await ws.file('a/file', '');
    await expect(makeDirectoriesInWorkspace(ws.root, path.join(ws.root, 'a/file/b'), 'a/file/b')).rejects.toBeInstanceOf(NotADirectoryError);
  });

  it('refuses a level that is a link, even one to outside, and creates nothing through it', async () => {
    await symlink(ws.outside, path.join(ws.root, 'link'));
    await expect(makeDirectoriesInWorkspace(ws.root, path.join(ws.root, 'link/new'), 'link/new')).rejects.toThrow(/replaced by a link/);
    expect(await readdir(ws.outside)).toEqual(['secret.txt']);
  });

  it('refuses a directory outside the workspace', async () => {
    await expect(makeDirectoriesInWorkspace(ws.root, path.join(ws.outside, 'new'), '../outside/new')).rejects.toThrow(/outside the workspace root/);
    expect(await readdir(ws.outside)).toEqual(['secret.txt']);
  });
});
