import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editTool } from '../../src/tools/edit.js';
import { globTool } from '../../src/tools/glob.js';
import { grepTool } from '../../src/tools/grep.js';
import { lsTool } from '../../src/tools/ls.js';
import { readTool } from '../../src/tools/read.js';
import { writeTool } from '../../src/tools/write.js';
import { runTool, useTempWorkspace } from './helpers.js';

type PathTool = 'read' | 'write' | 'edit' | 'ls' | 'glob' | 'grep';

/** Input for each tool that targets `target`, which is a file for read/write/edit and a file or directory otherwise. */
const inputFor: Record<PathTool, (target: string) => object> = {
  read: (target) => ({ path: target }),
  write: (target) => ({ path: target, content: 'pwned' }),
  edit: (target) => ({ path: target, oldText: 'top secret', newText: 'pwned' }),
  ls: (target) => ({ path: target }),
  glob: (target) => ({ pattern: '*', path: target }),
  grep: (target) => ({ pattern: 'secret', path: target }),
};

const factories = { read: readTool, write: writeTool, edit: editTool, ls: lsTool, glob: globTool, grep: grepTool };
const fileTools: PathTool[] = ['read', 'write', 'edit'];
const directoryTools: PathTool[] = ['ls', 'glob', 'grep'];
const allTools: PathTool[] = [...fileTools, ...directoryTools];

describe('workspace confinement', () => {
  const ws = useTempWorkspace();
  const run = (name: PathTool, target: string) => runTool(factories[name]({ cwd: ws.root }), inputFor[name](target));
  const secretIsUntouched = async () => {
    await expect(readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).resolves.toBe('top secret\n');
    await expect(readdir(ws.outside)).resolves.toEqual(['secret.txt']);
  };

  describe.each(allTools)('%s', (name) => {
    // File tools aim at the secret file, directory tools at the directory holding it.
    const target = fileTools.includes(name) ? 'secret.txt' : '';

    it('rejects a ../ escape', async () => {
      const escape = path.join('..', 'outside', target);
      await expect(run(name, escape)).rejects.toThrow(`Path '${escape}' is outside the workspace root ${ws.root}`);
      await secretIsUntouched();
    });

    it('rejects a ../ escape hidden after a subdirectory', async () => {
      await ws.file('sub/keep.txt', '');
      const escape = path.join('sub', '..', '..', 'outside', target);
      await expect(run(name, escape)).rejects.toThrow(/is outside the workspace root/);
      await secretIsUntouched();
    });

    it('rejects an absolute path outside the root', async () => {
      const absolute = path.join(ws.outside, target);
      await expect(run(name, absolute)).rejects.toThrow(`Path '${absolute}' is outside the workspace root ${ws.root}`);
      await secretIsUntouched();
    });

    it('rejects a symlinked directory inside the root that points outside', async () => {
      await symlink(ws.outside, path.join(ws.root, 'escape'));
      const viaLink = path.join('escape', target);
      await expect(run(name, viaLink)).rejects.toThrow(/resolves through a symbolic link to .*outside the workspace root/);
      await secretIsUntouched();
    });

    it('rejects a symlinked file inside the root that points outside', async () => {
      await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'innocent.txt'));
      await expect(run(name, 'innocent.txt')).rejects.toThrow(/resolves through a symbolic link/);
      await secretIsUntouched();
    });
  });

  it('write refuses a dangling symlink that would create a file outside', async () => {
    await symlink(path.join(ws.outside, 'created.txt'), path.join(ws.root, 'dangling.txt'));
    await expect(run('write', 'dangling.txt')).rejects.toThrow(/resolves through a symbolic link/);
    await secretIsUntouched();
  });

  it('write refuses to create new directories through a symlink that points outside', async () => {
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    await expect(run('write', 'escape/new/dir/file.txt')).rejects.toThrow(/resolves through a symbolic link/);
    await secretIsUntouched();
  });

  it('glob rejects patterns that walk up or are absolute', async () => {
    const glob = globTool({ cwd: ws.root });
    await expect(runTool(glob, { pattern: '../outside/*' })).rejects.toThrow(/must not contain '\.\.' segments/);
    await expect(runTool(glob, { pattern: `${ws.outside}/*` })).rejects.toThrow(/must be relative/);
  });

  it('grep with a glob that walks up is refused, as glob refuses it', async () => {
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'secret', glob: '../outside/*' })).rejects.toThrow(
      "Glob pattern '../outside/*' must not contain '..' segments",
    );
  });
});

describe('no check-then-use race: a directory swapped for a link while the tools work', () => {
  const ws = useTempWorkspace();

  it('reads, edits and writes never reach outside while a concurrent loop swaps a directory and a link to outside', async () => {
    const dir = path.join(ws.root, 'd');
    const parked = path.join(ws.root, 'd.real');
    await ws.file('d/secret.txt', 'inside\n');
    await writeFile(path.join(ws.outside, 'secret.txt'), 'top secret\n');
    // The attacker, in a process of its own so that it really runs concurrently: the real directory and a
    // link to outside take turns at ws/d, a bounded number of times.
    const swapper = spawn(
      'bash',
      ['-c', `for i in $(seq 1 20000); do mv d d.real 2>/dev/null; ln -s "$1" d 2>/dev/null; rm -f d 2>/dev/null; mv d.real d 2>/dev/null; done`, 'swap', ws.outside],
      { cwd: ws.root, stdio: 'ignore', detached: true },
    );
    const swapperDone = new Promise((resolve) => swapper.on('exit', resolve));
    const outputs: string[] = [];
    for (let attempt = 0; attempt < 300; attempt++) {
      const results = await Promise.allSettled([
        runTool(readTool({ cwd: ws.root }), { path: 'd/secret.txt' }),
        runTool(grepTool({ cwd: ws.root }), { pattern: 'secret', path: 'd' }),
        runTool(writeTool({ cwd: ws.root }), { path: 'd/new.txt', content: 'planted' }),
        runTool(editTool({ cwd: ws.root }), { path: 'd/secret.txt', oldText: 'inside', newText: 'inside' + '' }),
      ]);
      for (const result of results) outputs.push(result.status === 'fulfilled' ? result.value : String(result.reason));
    }
    // The whole group: a `mv` the loop started would outlive its shell and race the clean-up.
    process.kill(-swapper.pid!, 'SIGKILL');
    await swapperDone;
    if (!existsSync(dir)) await rename(parked, dir).catch(() => undefined);

    for (const output of outputs) expect(output).not.toContain('top secret');
    expect(await readdir(ws.outside)).toEqual(['secret.txt']);
    expect(await readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});

describe('no directory outside: write creates parent directories while a concurrent loop swaps a directory and a link to outside', () => {
  const ws = useTempWorkspace();

  it('every level write creates is inside the workspace, whatever the swaps', async () => {
    const dir = path.join(ws.root, 'd');
    const parked = path.join(ws.root, 'd.real');
    await ws.file('d/keep.txt', 'inside\n');
    const swapper = spawn(
      'bash',
      ['-c', `for i in $(seq 1 20000); do mv d d.real 2>/dev/null; ln -s "$1" d 2>/dev/null; rm -f d 2>/dev/null; mv d.real d 2>/dev/null; done`, 'swap', ws.outside],
      { cwd: ws.root, stdio: 'ignore', detached: true },
    );
    const swapperDone = new Promise((resolve) => swapper.on('exit', resolve));
    for (let attempt = 0; attempt < 300; attempt++) {
      await runTool(writeTool({ cwd: ws.root }), { path: `d/n${attempt}/a/b/new.txt`, content: 'planted' }).catch(() => undefined);
    }
    // The whole group: a `mv` the loop started would outlive its shell and race the clean-up.
    process.kill(-swapper.pid!, 'SIGKILL');
    await swapperDone;
    if (!existsSync(dir)) await rename(parked, dir).catch(() => undefined);

    expect(await readdir(ws.outside, { recursive: true })).toEqual(['secret.txt']);
  });
});

describe('confinement under random paths (fast-check)', () => {
  const ws = useTempWorkspace();

  it('no path built from .., links, absolute parts and odd characters lets read, write or ls reach outside', async () => {
    await ws.file('inside.txt', 'inside\n');
    await symlink(ws.outside, path.join(ws.root, 'link'));
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'secret-link.txt'));
    const segment = fc.constantFrom('..', '.', 'link', 'secret-link.txt', 'secret.txt', 'inside.txt', 'outside', ws.outside, '', '~', '%2e%2e', 'a\\b');
    const userPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
    await fc.assert(
      fc.asyncProperty(userPath, async (candidate) => {
        const read = await runTool(readTool({ cwd: ws.root }), { path: candidate }).catch((error: unknown) => String(error));
        expect(read).not.toContain('top secret');
        const listed = await runTool(lsTool({ cwd: ws.root }), { path: candidate }).catch((error: unknown) => String(error));
        expect(listed).not.toMatch(/^secret\.txt$/m);
        await runTool(writeTool({ cwd: ws.root }), { path: `${candidate}/planted.txt`, content: 'x' }).catch(() => undefined);
        expect(await readdir(ws.outside)).toEqual(['secret.txt']);
      }),
      { numRuns: 150 },
    );
  });
});
