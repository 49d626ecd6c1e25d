import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, chown, link, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editTool } from '../../src/tools/edit.js';
import { grepTool } from '../../src/tools/grep.js';
import { readTool } from '../../src/tools/read.js';
import { writeTool } from '../../src/tools/write.js';
import { runTool, useTempWorkspace } from './helpers.js';
import { modesBindTools, runToolBoundByModes } from '../support/tool-without-root-rights.js';

describe('write tool', () => {
  const ws = useTempWorkspace();
  const write = (input: object, signal?: AbortSignal) => runTool(writeTool({ cwd: ws.root }), input, signal);

  it("refuses a path starting with ~/ instead of creating a directory named '~' in the workspace, and takes ./~/ for one", async () => {
    await expect(write({ path: '~/notes.md', content: 'x' })).rejects.toThrow(
      "Path '~/notes.md' starts with '~', which is not a home directory here: it would be a directory named '~' in the workspace. " +
        "Give a path relative to the workspace root (for a directory really named '~', write './~/notes.md')",
    );
    expect(readdirSync(ws.root)).toEqual([]);
    await expect(runTool(readTool({ cwd: ws.root }), { path: '~' })).rejects.toThrow("Path '~' starts with '~'");
    await expect(write({ path: './~/notes.md', content: 'x' })).resolves.toBe('Wrote 1 bytes to ./~/notes.md');
  });

  it('refuses a path ending in / (a directory) for read, write and edit instead of taking it as a file', async () => {
    await ws.file('a.txt', 'hello\n');
    const message = (userPath: string) => `Path '${userPath}' ends with '/', which names a directory; give the path of a file`;
    await expect(write({ path: 'newdir/', content: 'x' })).rejects.toThrow(message('newdir/'));
    await expect(write({ path: 'a.txt/', content: 'x' })).rejects.toThrow(message('a.txt/'));
    await expect(runTool(editTool({ cwd: ws.root }), { path: 'a.txt/', oldText: 'hello', newText: 'bye' })).rejects.toThrow(message('a.txt/'));
    await expect(runTool(readTool({ cwd: ws.root }), { path: 'a.txt/' })).rejects.toThrow(message('a.txt/'));
    expect(readdirSync(ws.root)).toEqual(['a.txt']);
    await expect(readFile(path.join(ws.root, 'a.txt'), 'utf8')).resolves.toBe('hello\n');
  });

  it('refuses a path ending in /. or /.. (a directory) for read, write and edit instead of writing the file or directory before it', async () => {
    await ws.file('a.txt', 'hello\n');
    const message = (userPath: string, ending: string) => `Path '${userPath}' ends with '${ending}', which names a directory; give the path of a file`;
    await expect(write({ path: 'a.txt/.', content: 'x' })).rejects.toThrow(message('a.txt/.', '.'));
    await expect(write({ path: 'newdir/.', content: 'x' })).rejects.toThrow(message('newdir/.', '.'));
    await expect(write({ path: 'sub/a.txt/..', content: 'x' })).rejects.toThrow(message('sub/a.txt/..', '..'));
    await expect(write({ path: '.', content: 'x' })).rejects.toThrow(message('.', '.'));
    await expect(runTool(editTool({ cwd: ws.root }), { path: 'a.txt/.', oldText: 'hello', newText: 'bye' })).rejects.toThrow(message('a.txt/.', '.'));
    await expect(runTool(readTool({ cwd: ws.root }), { path: 'a.txt/.' })).rejects.toThrow(message('a.txt/.', '.'));
    expect(readdirSync(ws.root)).toEqual(['a.txt']);
    await expect(readFile(path.join(ws.root, 'a.txt'), 'utf8')).resolves.toBe('hello\n');
  });

  it('refuses content or newText with half of a character (a lone surrogate), which would be written as U+FFFD, and says where', async () => {
    await ws.file('a.txt', 'smile\n');
    await expect(write({ path: 'a.txt', content: 'smile \ud83d\n' })).rejects.toThrow(
      'content has half of a character (a lone UTF-16 surrogate, \\ud83d) at index 6, which UTF-8 cannot encode: it would be written as U+FFFD. ' +
        'Send the whole character (both halves of its surrogate pair, or the character itself)',
    );
    await expect(runTool(editTool({ cwd: ws.root }), { path: 'a.txt', oldText: 'smile', newText: '\ude00 smile' })).rejects.toThrow(
      'newText has half of a character (a lone UTF-16 surrogate, \\ude00) at index 0',
    );
    await expect(readFile(path.join(ws.root, 'a.txt'), 'utf8')).resolves.toBe('smile\n');
    await expect(write({ path: 'a.txt', content: 'smile \ud83d\ude00\n' })).resolves.toBe('Wrote 11 bytes to a.txt');
  });

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

describe('write and edit never leave a half-written or foreign file', () => {
  const ws = useTempWorkspace();
  const write = (input: object, signal?: AbortSignal) => runTool(writeTool({ cwd: ws.root }), input, signal);
  const edit = (input: object, signal?: AbortSignal) => runTool(editTool({ cwd: ws.root }), input, signal);

  it('an aborted write of a large file leaves the original whole and no temporary file behind', async () => {
    await ws.file('big.txt', 'original');
    const controller = new AbortController();
    const content = 'x'.repeat(64 * 1024 * 1024);
    const pending = write({ path: 'big.txt', content }, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/aborted/);
    await expect(readFile(path.join(ws.root, 'big.txt'), 'utf8')).resolves.toBe('original');
    expect(readdirSync(ws.root)).toEqual(['big.txt']);
  });

  it('write and edit a file whose name is as long as a name may be (255 bytes), whose temporary file would have a longer one', async () => {
    const name = `${'é'.repeat(100)}${'n'.repeat(51)}.txt`;
    expect(Buffer.byteLength(name)).toBe(255);
    await expect(write({ path: name, content: 'hello\n' })).resolves.toBe(`Wrote 6 bytes to ${name}`);
    await expect(edit({ path: name, oldText: 'hello', newText: 'bye' })).resolves.toBe(`Replaced 1 occurrence in ${name} (line 1)`);
    await expect(readFile(path.join(ws.root, name), 'utf8')).resolves.toBe('bye\n');
    expect(readdirSync(ws.root)).toEqual([name]);
  });

  it('refuses a name longer than a name may be with a message that says so, for write, read and edit, instead of a bare ENAMETOOLONG naming the absolute path', async () => {
    const name = 'n'.repeat(256);
    const message = `Path '${name}' has a name longer than the file system allows (255 bytes for one name, 4096 for a whole path on Linux); give a shorter one`;
    await expect(write({ path: name, content: 'x' })).rejects.toThrow(message);
    await expect(write({ path: `${name}/a.txt`, content: 'x' })).rejects.toThrow(`Path '${name}/a.txt' has a name longer`);
    await expect(runTool(readTool({ cwd: ws.root }), { path: name })).rejects.toThrow(message);
    await expect(edit({ path: name, oldText: 'a', newText: 'b' })).rejects.toThrow(message);
    expect(readdirSync(ws.root)).toEqual([]);
  });

  it('a written file keeps the permissions of the file it replaces', async () => {
    await ws.file('run.sh', 'echo old');
    await chmod(path.join(ws.root, 'run.sh'), 0o750);
    await write({ path: 'run.sh', content: 'echo new' });
    expect((await stat(path.join(ws.root, 'run.sh'))).mode & 0o777).toBe(0o750);
  });

  it.skipIf(process.getuid?.() !== 0)('as root, write and edit keep the owner and group of the file they replace instead of making it root\'s', async () => {
    const file = await ws.file('user.txt', 'old\n');
    await chown(file, 4321, 4322);
    await write({ path: 'user.txt', content: 'new\n' });
    expect(await stat(file)).toMatchObject({ uid: 4321, gid: 4322 });
    await edit({ path: 'user.txt', oldText: 'new', newText: 'newer' });
    expect(await stat(file)).toMatchObject({ uid: 4321, gid: 4322 });
    await expect(readFile(file, 'utf8')).resolves.toBe('newer\n');
  });

  it('refuses a FIFO instead of blocking on it, for write, edit and grep', async () => {
    execFileSync('mkfifo', [path.join(ws.root, 'pipe')]);
    await expect(write({ path: 'pipe', content: 'x' })).rejects.toThrow(/not a regular file/);
    await expect(edit({ path: 'pipe', oldText: 'a', newText: 'b' })).rejects.toThrow(/not a regular file/);
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'x', path: 'pipe' })).rejects.toThrow(/not a regular file/);
    await ws.file('a.txt', 'x marks it');
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'x' })).resolves.toContain('a.txt');
  });

  it('refuses to write or edit a file with other hard links (it would change a file elsewhere too)', async () => {
    await ws.file('a.txt', 'shared');
    await link(path.join(ws.root, 'a.txt'), path.join(ws.root, 'b.txt'));
    await expect(write({ path: 'a.txt', content: 'x' })).rejects.toThrow(/hard links/);
    await expect(edit({ path: 'a.txt', oldText: 'shared', newText: 'x' })).rejects.toThrow(/hard links/);
    await expect(readFile(path.join(ws.root, 'b.txt'), 'utf8')).resolves.toBe('shared');
  });
});

describe.skipIf(process.platform === 'win32' || !modesBindTools)('write and edit of a read-only file', () => {
  const ws = useTempWorkspace();

  it('are refused as a plain write would be, instead of replacing the file through its directory', async () => {
    const file = path.join(ws.root, 'ro.txt');
    await writeFile(file, 'locked\n', { mode: 0o444 });
    expect(await runToolBoundByModes(ws.root, 'write', { path: 'ro.txt', content: 'changed\n' })).toEqual({ ok: false, text: "Permission denied for 'ro.txt'" });
    expect(await runToolBoundByModes(ws.root, 'edit', { path: 'ro.txt', oldText: 'locked', newText: 'edited' })).toEqual({ ok: false, text: "Permission denied for 'ro.txt'" });
    await expect(readFile(file, 'utf8')).resolves.toBe('locked\n');
  });
});
