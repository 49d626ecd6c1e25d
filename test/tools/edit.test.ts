import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editTool } from '../../src/tools/edit.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('edit tool', () => {
  const ws = useTempWorkspace();
  const edit = (input: object) => runTool(editTool({ cwd: ws.root }), input);
  const contentOf = (file: string) => readFile(path.join(ws.root, file), 'utf8');

  it('replaces a unique exact match and says where', async () => {
    await ws.file('a.ts', 'const a = 1;\nlet b = 2;\n');
    await expect(edit({ path: 'a.ts', oldText: 'let b = 2;', newText: 'const b = 2;' })).resolves.toBe(
      'Replaced 1 occurrence in a.ts (line 2)',
    );
    await expect(contentOf('a.ts')).resolves.toBe('const a = 1;\nconst b = 2;\n');
  });

  it('inserts newText literally, even with $ sequences', async () => {
    await ws.file('a.txt', 'price: X');
    await edit({ path: 'a.txt', oldText: 'X', newText: '$& and $1' });
    await expect(contentOf('a.txt')).resolves.toBe('price: $& and $1');
  });

  it('fails when oldText is not found', async () => {
    await ws.file('a.txt', 'hello');
    await expect(edit({ path: 'a.txt', oldText: 'bye', newText: 'x' })).rejects.toThrow(/^oldText not found in a\.txt/);
  });

  it('fails on an ambiguous match, saying how many and what to do', async () => {
    await ws.file('a.txt', 'x = 1\nx = 1\nx = 1\n');
    await expect(edit({ path: 'a.txt', oldText: 'x = 1', newText: 'x = 2' })).rejects.toThrow(
      'oldText matches 3 times in a.txt; add surrounding context to make it unique, or set replaceAll to true',
    );
    await expect(contentOf('a.txt')).resolves.toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('replaces every match with replaceAll', async () => {
    await ws.file('a.txt', 'x = 1\ny\nx = 1\n');
    await expect(edit({ path: 'a.txt', oldText: 'x = 1', newText: 'x = 2', replaceAll: true })).resolves.toBe(
      'Replaced 2 occurrences in a.txt (first at line 1)',
    );
    await expect(contentOf('a.txt')).resolves.toBe('x = 2\ny\nx = 2\n');
  });

  it('matches LF oldText in a CRLF file and keeps CRLF line endings', async () => {
    await ws.file('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await edit({ path: 'win.txt', oldText: 'one\ntwo', newText: 'uno\ndos' });
    await expect(contentOf('win.txt')).resolves.toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('rejects identical oldText and newText', async () => {
    await ws.file('a.txt', 'same');
    await expect(edit({ path: 'a.txt', oldText: 'same', newText: 'same' })).rejects.toThrow(/identical/);
  });

  it('reports a missing file', async () => {
    await expect(edit({ path: 'nope.txt', oldText: 'a', newText: 'b' })).rejects.toThrow("Path 'nope.txt' does not exist");
  });

  it('refuses binary files', async () => {
    await ws.file('b.bin', Buffer.from([0x61, 0x00, 0x62]));
    await expect(edit({ path: 'b.bin', oldText: 'a', newText: 'c' })).rejects.toThrow(/looks binary/);
  });
});
