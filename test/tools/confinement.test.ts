import { readdir, readFile, symlink } from 'node:fs/promises';
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

  it('grep with a glob that walks up finds nothing outside', async () => {
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'secret', glob: '../outside/*' })).resolves.toMatch(/^No matches/);
  });
});
