import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globTool } from '../../src/tools/glob.js';
import { LS_MAX_ENTRIES, lsTool } from '../../src/tools/ls.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('ls tool', () => {
  const ws = useTempWorkspace();
  const ls = (input: object) => runTool(lsTool({ cwd: ws.root }), input);

  it('quotes a name with a line break or another control character, so that it cannot pass for other entries (ls, glob)', async () => {
    await ws.file('a.txt\nsecret.txt', 'token\n');
    await ws.file('"quoted".txt', 'token\n');
    await ws.file('plain.txt', 'token\n');
    await expect(ls({})).resolves.toBe('"\\"quoted\\".txt"\n"a.txt\\nsecret.txt"\nplain.txt');
    await expect(runTool(globTool({ cwd: ws.root }), { pattern: '*' })).resolves.toBe('"\\"quoted\\".txt"\n"a.txt\\nsecret.txt"\nplain.txt');
  });

  it('lists the root by default, sorted, with hidden entries and a / after directories', async () => {
    await ws.file('b.txt', '');
    await ws.file('.env', '');
    await ws.file('src/index.ts', '');
    await ws.file('a.txt', '');
    await expect(ls({})).resolves.toBe('.env\na.txt\nb.txt\nsrc/');
  });

  it('lists a subdirectory and marks symlinks to directories as directories', async () => {
    await ws.file('src/x.ts', '');
    await mkdir(path.join(ws.root, 'src/lib'));
    await symlink(path.join(ws.root, 'src/lib'), path.join(ws.root, 'src/alias'));
    await expect(ls({ path: 'src' })).resolves.toBe('alias/\nlib/\nx.ts');
  });

  it('shows at most maxEntries entries (default 500) and says how many more there are', async () => {
    expect(LS_MAX_ENTRIES).toBe(500);
    for (const name of ['e', 'a', 'd', 'b', 'c']) await ws.file(`many/${name}`, '');
    const output = await runTool(lsTool({ cwd: ws.root, maxEntries: 3 }), { path: 'many' });
    expect(output).toBe('a\nb\nc\n[… 2 more]');
  });

  it('says so for an empty directory', async () => {
    await mkdir(path.join(ws.root, 'empty'));
    await expect(ls({ path: 'empty' })).resolves.toMatch(/is empty/);
  });

  it('refuses files and points to read', async () => {
    await ws.file('a.txt', '');
    await expect(ls({ path: 'a.txt' })).rejects.toThrow(/is a file.*use the read tool/);
  });

  it('reports a missing directory', async () => {
    await expect(ls({ path: 'nope' })).rejects.toThrow("Path 'nope' does not exist");
  });
});
