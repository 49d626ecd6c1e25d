import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTool } from '../../src/tools/read.js';
import { runTool, useTempWorkspace } from './helpers.js';

const lines = (count: number, make = (n: number) => `line ${n}`) =>
  `${Array.from({ length: count }, (_, i) => make(i + 1)).join('\n')}\n`;

describe('read tool', () => {
  const ws = useTempWorkspace();
  const read = (input: object, signal?: AbortSignal) => runTool(readTool({ cwd: ws.root }), input, signal);

  it('returns the file with cat -n style line numbers', async () => {
    await ws.file('a.txt', 'alpha\nbeta\n');
    await expect(read({ path: 'a.txt' })).resolves.toBe('     1\talpha\n     2\tbeta');
  });

  it('starts at offset and returns at most limit lines, saying how to continue', async () => {
    await ws.file('a.txt', lines(10));
    const output = await read({ path: 'a.txt', offset: 3, limit: 2 });
    expect(output).toBe('     3\tline 3\n     4\tline 4\n\n[truncated: showing lines 3-4 of 10. Continue with offset=5]');
  });

  it('adds no notice when the window reaches the end of the file', async () => {
    await ws.file('a.txt', lines(10));
    const output = await read({ path: 'a.txt', offset: 9 });
    expect(output).toBe('     9\tline 9\n    10\tline 10');
  });

  it('shows at most 2000 lines by default', async () => {
    await ws.file('big.txt', lines(2500, (n) => String(n)));
    const output = await read({ path: 'big.txt' });
    expect(output).toContain('  2000\t2000\n\n[truncated: showing lines 1-2000 of 2500. Continue with offset=2001]');
    expect(output).not.toContain('\t2001');
  });

  it('stops at 50 KB of output and points to the next line', async () => {
    await ws.file('wide.txt', lines(1000, () => 'x'.repeat(200)));
    const output = await read({ path: 'wide.txt' });
    const notice = /\[truncated: showing lines 1-(\d+) of 1000\. Continue with offset=(\d+)\]$/.exec(output);
    expect(notice).not.toBeNull();
    expect(Number(notice![2])).toBe(Number(notice![1]) + 1);
    expect(Buffer.byteLength(output.slice(0, notice!.index))).toBeLessThanOrEqual(50 * 1024 + 2);
  });

  it('cuts lines longer than 2000 characters with a marker', async () => {
    await ws.file('long.txt', `${'y'.repeat(5000)}\nshort\n`);
    const output = await read({ path: 'long.txt' });
    expect(output).toBe(`     1\t${'y'.repeat(2000)}… [line cut: 5000 chars]\n     2\tshort`);
  });

  it('counts and shows a last line without a trailing newline and strips CR of CRLF files', async () => {
    await ws.file('crlf.txt', 'a\r\nb\r\nc');
    await expect(read({ path: 'crlf.txt' })).resolves.toBe('     1\ta\n     2\tb\n     3\tc');
  });

  it('says so for an empty file', async () => {
    await ws.file('empty.txt', '');
    await expect(read({ path: 'empty.txt' })).resolves.toMatch(/is empty/);
  });

  it('rejects an offset past the end of the file', async () => {
    await ws.file('a.txt', lines(3));
    await expect(read({ path: 'a.txt', offset: 4 })).rejects.toThrow("offset 4 is beyond the end of 'a.txt', which has 3 lines");
  });

  it('says when the file is not valid UTF-8, whose bytes it shows as U+FFFD, so that the text is not copied back as it is shown', async () => {
    await ws.file('latin1.txt', Buffer.from('caf\xe9\nok\n', 'latin1'));
    await expect(read({ path: 'latin1.txt' })).resolves.toBe(
      '     1\tcaf\uFFFD\n     2\tok\n\n[not valid UTF-8: the bytes that are not are shown as \uFFFD; writing this text back would replace them, and edit refuses this file]',
    );
    await ws.file('replacement.txt', 'a real \uFFFD\n');
    await expect(read({ path: 'replacement.txt' })).resolves.toBe('     1\ta real \uFFFD');
  });

  it('reads what the file held when it was opened while another process keeps appending to it, and says the file grew', async () => {
    // A megabyte to read, in 16 chunks: the writer appends while they are read.
    const file = await ws.file('growing.log', lines(3) + 'filler\n'.repeat(150_000));
    const handle = await open(file, 'a');
    let reading = true;
    // Appends as fast as it can until the read is answered: a reader that follows the end never catches up.
    const writer = (async () => {
      const chunk = lines(2000, () => 'appended');
      while (reading) await handle.write(chunk);
    })();
    try {
      await handle.write(lines(1, () => 'written before the read'));
      const output = await read({ path: 'growing.log', limit: 5 });
      expect(output).toMatch(/^ {5}1\tline 1\n {5}2\tline 2\n {5}3\tline 3\n/);
      expect(output).toMatch(/\[the file grew while it was read: showing it as it was when opened \(\d+ bytes\); read it again for what was appended\]$/);
    } finally {
      reading = false;
      await writer;
      await handle.close();
    }
  });

  it('refuses binary files', async () => {
    await ws.file('image.bin', Buffer.from([0x89, 0x50, 0x00, 0x47]));
    await expect(read({ path: 'image.bin' })).rejects.toThrow(/looks binary/);
  });

  it('refuses directories and points to ls', async () => {
    await mkdir(path.join(ws.root, 'src'));
    await expect(read({ path: 'src' })).rejects.toThrow(/is a directory.*use the ls tool/);
  });

  it('reports a missing file', async () => {
    await expect(read({ path: 'nope.txt' })).rejects.toThrow("Path 'nope.txt' does not exist");
  });

  it('stops when the abort signal fires', async () => {
    await ws.file('a.txt', lines(3));
    const controller = new AbortController();
    controller.abort();
    await expect(read({ path: 'a.txt' }, controller.signal)).rejects.toThrow('read was aborted');
  });
});
