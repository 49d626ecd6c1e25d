/**
 * What glob and grep do with a directory or file they come upon and may not read: they say so,
 * so that "No matches" or a short listing does not pass for the whole truth. Root may read
 * everything, so the tool runs in a process the modes bind (`runToolBoundByModes`).
 */
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { modesBindTools, runToolBoundByModes } from '../support/tool-without-root-rights.js';
import { useTempWorkspace } from './helpers.js';

describe.skipIf(!modesBindTools)('glob and grep, where something cannot be read', () => {
  const ws = useTempWorkspace();
  const locked: string[] = [];
  const lock = async (relativePath: string) => {
    const target = path.join(ws.root, relativePath);
    await chmod(target, 0o000);
    locked.push(target);
  };
  afterEach(async () => {
    // Given back, so the workspace can be removed without root.
    for (const target of locked.splice(0)) await chmod(target, 0o755);
  });

  async function arrange(): Promise<void> {
    await ws.file('open/a.txt', 'needle\n');
    await ws.file('locked/b.txt', 'needle\n');
    await ws.file('files/ok.txt', 'needle\n');
    await ws.file('files/secret.txt', 'needle\n');
    await lock('locked');
    await lock('files/secret.txt');
  }

  it('glob lists what it can and names the directory it could not read', async () => {
    await arrange();

    const { text: output } = await runToolBoundByModes(ws.root, 'glob', { pattern: '**/*.txt' });

    expect(output).toBe(
      ['files/ok.txt', 'files/secret.txt', 'open/a.txt', '', '[1 directory could not be read, so what is in it was not listed: locked (permission denied)]'].join('\n'),
    );
  });

  it('grep searches what it can and names the directory and the file it could not read', async () => {
    await arrange();

    const { text: output } = await runToolBoundByModes(ws.root, 'grep', { pattern: 'needle' });

    expect(output).toBe(
      [
        'files/ok.txt:1: needle',
        'open/a.txt:1: needle',
        '',
        '[1 directory could not be read, so what is in it was not searched: locked (permission denied)]',
        '[1 file could not be read, so it was not searched: files/secret.txt (permission denied)]',
      ].join('\n'),
    );
  });

  it('grep with no match says so next to what it could not search, so "No matches" is not the whole truth', async () => {
    await ws.file('locked/b.txt', 'needle\n');
    await lock('locked');

    const { text: output } = await runToolBoundByModes(ws.root, 'grep', { pattern: 'needle' });

    expect(output).toBe(`No matches for /needle/ in .\n\n[1 directory could not be read, so what is in it was not searched: locked (permission denied)]`);
  });
});
