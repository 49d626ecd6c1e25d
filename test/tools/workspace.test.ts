import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertGlobPatternStaysInside,
  isWithinRoot,
  realpathAllowingMissing,
  resolveInWorkspace,
  resolveLexically,
  toWorkspaceRelative,
} from '../../src/tools/workspace.js';
import { useTempWorkspace } from './helpers.js';

describe('isWithinRoot', () => {
  it('accepts the root and paths below it', () => {
    expect(isWithinRoot('/ws', '/ws')).toBe(true);
    expect(isWithinRoot('/ws', '/ws/a/b')).toBe(true);
    expect(isWithinRoot('/ws', '/ws/..hidden')).toBe(true);
  });

  it('rejects parents, siblings and siblings sharing a name prefix', () => {
    expect(isWithinRoot('/ws', '/')).toBe(false);
    expect(isWithinRoot('/ws', '/other')).toBe(false);
    expect(isWithinRoot('/ws', '/wsx/a')).toBe(false);
  });
});

describe('resolveLexically', () => {
  it('resolves relative and absolute paths inside the root', () => {
    expect(resolveLexically('/ws', 'src/../a.ts')).toBe('/ws/a.ts');
    expect(resolveLexically('/ws', '/ws/a.ts')).toBe('/ws/a.ts');
    expect(resolveLexically('/ws', '')).toBe('/ws');
  });

  it('rejects ../ escapes with a message naming the path and the root', () => {
    expect(() => resolveLexically('/tmp/ws', '../x')).toThrow("Path '../x' is outside the workspace root /tmp/ws");
    expect(() => resolveLexically('/ws', 'a/../../x')).toThrow(/outside the workspace root/);
  });

  it('rejects absolute paths outside the root', () => {
    expect(() => resolveLexically('/ws', '/etc/passwd')).toThrow("Path '/etc/passwd' is outside the workspace root /ws");
  });

  it('accepts paths under an alternative name of the root', () => {
    expect(resolveLexically('/link-to-ws', '/real/ws/a', ['/real/ws'])).toBe('/real/ws/a');
  });

  it('rejects NUL bytes', () => {
    expect(() => resolveLexically('/ws', 'a\0b')).toThrow(/NUL/);
  });
});

describe('assertGlobPatternStaysInside', () => {
  it('accepts relative patterns', () => {
    expect(() => assertGlobPatternStaysInside('src/**/*.ts')).not.toThrow();
    expect(() => assertGlobPatternStaysInside('..foo/*')).not.toThrow();
  });

  it('rejects absolute patterns and .. segments, also inside braces', () => {
    expect(() => assertGlobPatternStaysInside('/etc/*')).toThrow(/must be relative/);
    expect(() => assertGlobPatternStaysInside('../**')).toThrow(/'\.\.'/);
    expect(() => assertGlobPatternStaysInside('src/../../x')).toThrow(/'\.\.'/);
    expect(() => assertGlobPatternStaysInside('{..,src}/*')).toThrow(/'\.\.'/);
  });
});

describe('toWorkspaceRelative', () => {
  it('gives slash-separated relative paths and . for the root', () => {
    expect(toWorkspaceRelative('/ws', '/ws/src/a.ts')).toBe('src/a.ts');
    expect(toWorkspaceRelative('/ws', '/ws')).toBe('.');
  });
});

describe('resolveInWorkspace', () => {
  const ws = useTempWorkspace();

  it('returns the real path of existing and not-yet-existing files', async () => {
    await ws.file('src/a.ts', 'x');
    await expect(resolveInWorkspace(ws.root, 'src/a.ts')).resolves.toBe(path.join(ws.root, 'src/a.ts'));
    await expect(resolveInWorkspace(ws.root, 'new/dir/b.ts')).resolves.toBe(path.join(ws.root, 'new/dir/b.ts'));
  });

  it('accepts symlinks that stay inside the workspace', async () => {
    await ws.file('real/a.txt', 'x');
    await symlink(path.join(ws.root, 'real'), path.join(ws.root, 'alias'));
    await expect(resolveInWorkspace(ws.root, 'alias/a.txt')).resolves.toBe(path.join(ws.root, 'real/a.txt'));
  });

  it('rejects ../ and absolute escapes', async () => {
    await expect(resolveInWorkspace(ws.root, '../outside/secret.txt')).rejects.toThrow(
      `Path '../outside/secret.txt' is outside the workspace root ${ws.root}`,
    );
    await expect(resolveInWorkspace(ws.root, path.join(ws.outside, 'secret.txt'))).rejects.toThrow(/outside the workspace root/);
  });

  it('rejects a symlinked directory pointing outside, also for files that do not exist yet', async () => {
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    await expect(resolveInWorkspace(ws.root, 'escape/secret.txt')).rejects.toThrow(/symbolic link.*outside the workspace root/);
    await expect(resolveInWorkspace(ws.root, 'escape/new/file.txt')).rejects.toThrow(/symbolic link/);
  });

  it('rejects a dangling symlink whose target would be created outside', async () => {
    await symlink(path.join(ws.outside, 'not-yet.txt'), path.join(ws.root, 'dangling'));
    await expect(resolveInWorkspace(ws.root, 'dangling')).rejects.toThrow(/symbolic link/);
  });

  it('reports a missing workspace root', async () => {
    await expect(resolveInWorkspace(path.join(ws.root, 'missing-root'), 'a')).rejects.toThrow(/Workspace root .* is not accessible: ENOENT/);
  });
});

describe('realpathAllowingMissing', () => {
  const ws = useTempWorkspace();

  it('appends the missing rest to the deepest existing ancestor', async () => {
    await mkdir(path.join(ws.root, 'a'));
    await expect(realpathAllowingMissing(path.join(ws.root, 'a/b/c'))).resolves.toBe(path.join(ws.root, 'a/b/c'));
  });

  it('follows chains of dangling symlinks to their final target', async () => {
    await symlink(path.join(ws.root, 'second'), path.join(ws.root, 'first'));
    await symlink(path.join(ws.outside, 'final'), path.join(ws.root, 'second'));
    await expect(realpathAllowingMissing(path.join(ws.root, 'first'))).resolves.toBe(path.join(ws.outside, 'final'));
  });

  it('gives up on symlink loops', async () => {
    await symlink(path.join(ws.root, 'loop-b'), path.join(ws.root, 'loop-a'));
    await symlink(path.join(ws.root, 'loop-a'), path.join(ws.root, 'loop-b'));
    await expect(realpathAllowingMissing(path.join(ws.root, 'loop-a'))).rejects.toThrow();
  });
});
