import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitLines, truncateHead, truncateTail, utf8Prefix, utf8Suffix } from '../../src/tools/truncate.js';

const tenLines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');

describe('splitLines', () => {
  it('does not count a trailing newline as an extra empty line', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });
});

describe('truncateHead', () => {
  it('returns text that fits unchanged', () => {
    const result = truncateHead(tenLines, { maxLines: 10, maxBytes: 1000 });
    expect(result).toMatchObject({ text: tenLines, truncated: false, truncatedBy: null, totalLines: 10, shownLines: 10 });
    expect(result.firstShownLine).toBe(1);
    expect(result.lastShownLine).toBe(10);
  });

  it('keeps the first lines when there are too many', () => {
    const result = truncateHead(tenLines, { maxLines: 3, maxBytes: 1000 });
    expect(result.text).toBe('line 1\nline 2\nline 3');
    expect(result).toMatchObject({ truncated: true, truncatedBy: 'lines', totalLines: 10, shownLines: 3, firstShownLine: 1, lastShownLine: 3 });
  });

  it('keeps only whole lines that fit in the byte budget', () => {
    // "line 1\nline 2" is 13 bytes; adding "\nline 3" would make 20.
    const result = truncateHead(tenLines, { maxLines: 100, maxBytes: 15 });
    expect(result.text).toBe('line 1\nline 2');
    expect(result).toMatchObject({ truncatedBy: 'bytes', shownLines: 2, shownBytes: 13, partialLine: false });
  });

  it('counts multi-byte characters by their UTF-8 size', () => {
    const result = truncateHead('ééé\nx', { maxLines: 10, maxBytes: 6 });
    expect(result.text).toBe('ééé');
    expect(result.totalBytes).toBe(8);
  });

  it('cuts a single over-long first line at a character boundary and flags it', () => {
    const result = truncateHead('€€€€\nnext', { maxLines: 10, maxBytes: 7 });
    expect(result.text).toBe('€€');
    expect(result).toMatchObject({ partialLine: true, shownLines: 1, shownBytes: 6, truncatedBy: 'bytes' });
  });

  it('handles empty text', () => {
    expect(truncateHead('', { maxLines: 5, maxBytes: 5 })).toMatchObject({ text: '', truncated: false, totalLines: 0, firstShownLine: 0 });
  });
});

describe('truncateTail', () => {
  it('keeps the last lines when there are too many', () => {
    const result = truncateTail(tenLines, { maxLines: 2, maxBytes: 1000 });
    expect(result.text).toBe('line 9\nline 10');
    expect(result).toMatchObject({ truncatedBy: 'lines', shownLines: 2, firstShownLine: 9, lastShownLine: 10, totalLines: 10 });
  });

  it('keeps only whole trailing lines within the byte budget', () => {
    const result = truncateTail(tenLines, { maxLines: 100, maxBytes: 10 });
    expect(result.text).toBe('line 10');
    expect(result).toMatchObject({ truncatedBy: 'bytes', shownLines: 1, firstShownLine: 10 });
  });

  it('keeps the end of a single over-long last line', () => {
    const result = truncateTail(`start\n${'x'.repeat(50)}END`, { maxLines: 10, maxBytes: 5 });
    expect(result.text).toBe('xxEND');
    expect(result.partialLine).toBe(true);
  });
});

describe('utf8Prefix and utf8Suffix', () => {
  it('never split a multi-byte character', () => {
    expect(utf8Prefix('a€b', 3)).toBe('a');
    expect(utf8Prefix('a€b', 4)).toBe('a€');
    expect(utf8Suffix('a€b', 3)).toBe('b');
    expect(utf8Suffix('a😀', 4)).toBe('😀');
    expect(utf8Suffix('a😀', 3)).toBe('');
  });

  it('utf8Suffix matches the byte-exact longest suffix for any text (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 0, max: 60 }), (text, maxBytes) => {
        const suffix = utf8Suffix(text, maxBytes);
        expect(text.endsWith(suffix)).toBe(true);
        expect(Buffer.byteLength(suffix)).toBeLessThanOrEqual(maxBytes);
        const chars = Array.from(text);
        const longer = chars.slice(chars.length - Array.from(suffix).length - 1).join('');
        if (longer.length > suffix.length) expect(Buffer.byteLength(longer)).toBeGreaterThan(maxBytes);
      }),
      { numRuns: 300 },
    );
  });

  it('a 100 MB single-line output is cut from its ends without copying it into an array', () => {
    const huge = 'y'.repeat(100 * 1024 * 1024);
    const heapBefore = process.memoryUsage().heapUsed;
    const tail = truncateTail(huge, { maxLines: 2000, maxBytes: 50 * 1024 });
    const grown = process.memoryUsage().heapUsed - heapBefore;
    expect(tail.text.length).toBeLessThanOrEqual(50 * 1024);
    // Array.from over 100 M characters needs gigabytes; the kept tail needs kilobytes.
    expect(grown).toBeLessThan(256 * 1024 * 1024);
  });
});
