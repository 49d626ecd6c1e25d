import { describe, expect, it } from 'vitest';
import { OutputTail } from '../../src/tools/output-tail.js';

describe('OutputTail', () => {
  it('keeps everything while under capacity', () => {
    const tail = new OutputTail(100);
    tail.append(Buffer.from('one\n'));
    tail.append(Buffer.from('two\n'));
    expect(tail.snapshot()).toEqual({ text: 'one\ntwo\n', droppedBytes: 0, droppedLines: 0, startsMidLine: false, notUtf8: false });
  });

  it('drops the oldest output and restarts at a line boundary', () => {
    const tail = new OutputTail(10);
    for (let i = 1; i <= 5; i++) tail.append(Buffer.from(`line${i}\n`));
    // 30 bytes written; the last 10 are "ne4\nline5\n", so the partial "ne4" line is dropped too.
    expect(tail.snapshot()).toEqual({ text: 'line5\n', droppedBytes: 24, droppedLines: 4, startsMidLine: false, notUtf8: false });
  });

  it('needs no extra cut when the drop ends exactly at a newline', () => {
    const tail = new OutputTail(6);
    tail.append(Buffer.from('aaaaa\nbbbbb\n'));
    expect(tail.snapshot()).toEqual({ text: 'bbbbb\n', droppedBytes: 6, droppedLines: 1, startsMidLine: false, notUtf8: false });
  });

  it('keeps the end of a line when the kept bytes hold nothing else', () => {
    const tail = new OutputTail(4);
    tail.append(Buffer.from('abcdefgh'));
    expect(tail.snapshot()).toEqual({ text: 'efgh', droppedBytes: 4, droppedLines: 0, startsMidLine: true, notUtf8: false });
    tail.append(Buffer.from('\n'));
    expect(tail.snapshot()).toEqual({ text: 'fgh\n', droppedBytes: 5, droppedLines: 0, startsMidLine: true, notUtf8: false });
  });

  it('says whether the kept bytes are valid UTF-8, but for a character its drop cut in two', () => {
    const invalid = new OutputTail(100);
    invalid.append(Buffer.from('caf\xe9\n', 'latin1'));
    expect(invalid.snapshot().notUtf8).toBe(true);
    const cut = new OutputTail(4);
    // "é" is c3 a9: the drop of the first 3 bytes leaves its a9 at the start.
    cut.append(Buffer.from('ab\u00e9xyz'));
    expect(cut.snapshot()).toMatchObject({ startsMidLine: true, notUtf8: false });
  });
});
