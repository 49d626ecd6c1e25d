import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GLOB_MAX_RESULTS, globTool } from '../../src/tools/glob.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('glob tool', () => {
  const ws = useTempWorkspace();
  const glob = (input: object, signal?: AbortSignal) => runTool(globTool({ cwd: ws.root }), input, signal);

  it('returns matching files relative to the workspace root, sorted', async () => {
    await ws.file('src/b.ts', '');
    await ws.file('src/a.ts', '');
    await ws.file('src/deep/c.ts', '');
    await ws.file('README.md', '');
    await expect(glob({ pattern: '**/*.ts' })).resolves.toBe('src/a.ts\nsrc/b.ts\nsrc/deep/c.ts');
  });

  it('matches relative to path but still reports workspace-relative paths', async () => {
    await ws.file('src/deep/c.ts', '');
    await ws.file('other/d.ts', '');
    await expect(glob({ pattern: '**/*.ts', path: 'src' })).resolves.toBe('src/deep/c.ts');
  });

  it('includes hidden files but skips node_modules and .git', async () => {
    await ws.file('.config/x.json', '');
    await ws.file('node_modules/pkg/index.json', '');
    await ws.file('.git/config.json', '');
    await expect(glob({ pattern: '**/*.json' })).resolves.toBe('.config/x.json');
  });

  it('says so when nothing matches', async () => {
    await expect(glob({ pattern: '*.nothing' })).resolves.toBe("No files match '*.nothing' in .");
  });

  it('shows at most maxResults files (default 500) with a notice', async () => {
    expect(GLOB_MAX_RESULTS).toBe(500);
    for (const name of ['e', 'a', 'd', 'b', 'c']) await ws.file(`${name}.txt`, '');
    const output = await runTool(globTool({ cwd: ws.root, maxResults: 3 }), { pattern: '*.txt' });
    expect(output).toBe('a.txt\nb.txt\nc.txt\n\n[truncated: showing 3 of 5 files; narrow the pattern or path]');
  });

  it('does not list files behind a symlinked directory that points outside', async () => {
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    await ws.file('inside.txt', '');
    await expect(glob({ pattern: 'escape/*' })).resolves.toMatch(/^No files match/);
    await expect(glob({ pattern: '**/*.txt' })).resolves.toBe('inside.txt');
  });

  it('reports a path that is not a directory', async () => {
    await ws.file('a.txt', '');
    await expect(glob({ pattern: '*', path: 'a.txt' })).rejects.toThrow("Path 'a.txt' is not a directory");
  });

  it('stops when the abort signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(glob({ pattern: '**' }, controller.signal)).rejects.toThrow('glob was aborted');
  });
});
