import { readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileChangedError, writeFileAtomically } from '../../src/tools/atomic-write.js';
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

  it('writes the lines newText adds to a CRLF file with CRLF, also when oldText matched without a line break', async () => {
    await ws.file('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await edit({ path: 'win.txt', oldText: 'two', newText: 'two\nand a half' });
    await expect(contentOf('win.txt')).resolves.toBe('one\r\ntwo\r\nand a half\r\nthree\r\n');
  });

  it('leaves the line breaks of newText as given in a file that mixes CRLF and LF', async () => {
    await ws.file('mixed.txt', 'one\r\ntwo\nthree\r\n');
    await edit({ path: 'mixed.txt', oldText: 'two', newText: 'two\nand a half' });
    await expect(contentOf('mixed.txt')).resolves.toBe('one\r\ntwo\nand a half\nthree\r\n');
  });

  it('matches oldText as read shows a file that mixes CRLF and LF line breaks (without the \\r), and writes CRLF for the text it replaces', async () => {
    await ws.file('mixed.txt', 'one\r\ntwo\nthree\r\nfour\n');
    await expect(edit({ path: 'mixed.txt', oldText: 'one\ntwo\nthree', newText: '1\n2\n3' })).resolves.toBe('Replaced 1 occurrence in mixed.txt (line 1)');
    await expect(contentOf('mixed.txt')).resolves.toBe('1\r\n2\r\n3\r\nfour\n');
  });

  it('counts oldText where read shows it in a file that mixes CRLF and LF line breaks: twice is not unique, and replaceAll replaces both, each with its line breaks', async () => {
    await ws.file('mixed.txt', 'a\r\nb\r\n-\na\nb\n');
    await expect(edit({ path: 'mixed.txt', oldText: 'a\nb', newText: 'x\ny' })).rejects.toThrow('oldText matches 2 times in mixed.txt');
    await expect(contentOf('mixed.txt')).resolves.toBe('a\r\nb\r\n-\na\nb\n');
    await expect(edit({ path: 'mixed.txt', oldText: 'a\nb', newText: 'x\ny', replaceAll: true })).resolves.toBe('Replaced 2 occurrences in mixed.txt (first at line 1)');
    await expect(contentOf('mixed.txt')).resolves.toBe('x\r\ny\r\n-\nx\ny\n');
  });

  it('rejects identical oldText and newText', async () => {
    await ws.file('a.txt', 'same');
    await expect(edit({ path: 'a.txt', oldText: 'same', newText: 'same' })).rejects.toThrow(/identical/);
  });

  it('refuses oldText with half of a character, which would match half of one in the file and leave the other half to be written as U+FFFD', async () => {
    await ws.file('smile.txt', 'smile \u{1F600}\n');
    await expect(edit({ path: 'smile.txt', oldText: '\ud83d', newText: 'x' })).rejects.toThrow(
      'oldText has half of a character (a lone UTF-16 surrogate, \\ud83d) at index 0, which UTF-8 cannot encode',
    );
    await expect(edit({ path: 'smile.txt', oldText: 'e \ud83d', newText: 'e ', replaceAll: true })).rejects.toThrow(
      'oldText has half of a character (a lone UTF-16 surrogate, \\ud83d) at index 2',
    );
    await expect(contentOf('smile.txt')).resolves.toBe('smile \u{1F600}\n');
  });

  it('reports a missing file', async () => {
    await expect(edit({ path: 'nope.txt', oldText: 'a', newText: 'b' })).rejects.toThrow("Path 'nope.txt' does not exist");
  });

  it('refuses binary files', async () => {
    await ws.file('b.bin', Buffer.from([0x61, 0x00, 0x62]));
    await expect(edit({ path: 'b.bin', oldText: 'a', newText: 'c' })).rejects.toThrow(/looks binary/);
  });

  it('refuses a file that is not UTF-8 and leaves it as it was, instead of writing U+FFFD over every byte it cannot decode', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\nname = Jos\xe9\n', 'latin1');
    await ws.file('latin1.txt', latin1);
    await expect(edit({ path: 'latin1.txt', oldText: 'name', newText: 'NAME' })).rejects.toThrow(
      "File 'latin1.txt' is not valid UTF-8 (its first invalid byte, 0xe9, is on line 1); edit only changes UTF-8 text, " +
        'because writing the file back would replace every byte it cannot decode. Convert the file to UTF-8 first, or change it with a tool that keeps its encoding',
    );
    await expect(readFile(path.join(ws.root, 'latin1.txt'))).resolves.toEqual(latin1);
  });

  it('refuses a file too large to edit in memory before reading it, saying how large it is', async () => {
    const file = await ws.file('huge.txt', 'start\n');
    await truncate(file, 600 * 1024 * 1024);
    await expect(edit({ path: 'huge.txt', oldText: 'start', newText: 'begin' })).rejects.toThrow(
      "File 'huge.txt' is 600.0 MB; edit only changes files up to 50 MB, which it reads whole. Change it with a tool that streams it",
    );
  });

  it('refuses a replacement that would grow the file past 50 MB, instead of failing with Invalid string length', async () => {
    await ws.file('many.txt', 'a\n'.repeat(300_000));
    await expect(edit({ path: 'many.txt', oldText: 'a', newText: 'x'.repeat(200), replaceAll: true })).rejects.toThrow(
      "Replacing 300000 occurrences would make 'many.txt' 57.5 MB; edit only writes files up to 50 MB. Replace fewer at a time, or use a tool that streams the file",
    );
    await expect(contentOf('many.txt')).resolves.toBe('a\n'.repeat(300_000));
  });
});

describe('edit and write of one file at once, as a step runs its tool calls', () => {
  const ws = useTempWorkspace();
  const contentOf = (file: string) => readFile(path.join(ws.root, file), 'utf8');

  it('ten edits of one file started at once all land, instead of each writing back the file without the others', async () => {
    await ws.file('a.txt', Array.from({ length: 10 }, (_, line) => `line ${line}\n`).join(''));
    const edit = editTool({ cwd: ws.root });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, line) => runTool(edit, { path: 'a.txt', oldText: `line ${line}\n`, newText: `LINE ${line}\n` })),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, line) => `Replaced 1 occurrence in a.txt (line ${line + 1})`));
    await expect(contentOf('a.txt')).resolves.toBe(Array.from({ length: 10 }, (_, line) => `LINE ${line}\n`).join(''));
  });

  it('a file changed by something else after it was read is not written over: the change is kept and the writer told', async () => {
    const file = await ws.file('a.txt', 'as read\n');
    const readStats = await stat(file, { bigint: true });
    await writeFile(file, 'changed meanwhile\n');
    const writing = writeFileAtomically(file, 'made from what was read\n', { unchangedSince: readStats, workspace: { root: ws.root, userPath: 'a.txt' } });
    await expect(writing).rejects.toThrow(FileChangedError);
    await expect(writing).rejects.toThrow(
      "File 'a.txt' was changed by something else after it was read; nothing was written, so that change is kept. Read the file again and redo the change",
    );
    await expect(contentOf('a.txt')).resolves.toBe('changed meanwhile\n');
    expect(await readdir(ws.root)).toEqual(['a.txt']);
  });
});
