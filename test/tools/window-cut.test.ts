import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutWindow, fileLineNumber } from '../../src/tools/window-cut.js';

/** Reads `bytes` as grep does, `windowBytes` at a time, and returns the pieces matched with the file line each starts on. */
function pieces(bytes: Buffer, windowBytes: number): { text: string; firstLine: number; cutInsideLine: boolean }[] {
  const result: { text: string; firstLine: number; cutInsideLine: boolean }[] = [];
  let position = 0;
  let firstLine = 1;
  while (position < bytes.length) {
    const window = bytes.subarray(position, Math.min(bytes.length, position + windowBytes));
    const cut = cutWindow(window, position + window.length >= bytes.length);
    result.push({ text: window.subarray(0, cut.length).toString('utf8'), firstLine, cutInsideLine: cut.cutInsideLine });
    firstLine += cut.newlines;
    position += cut.length;
  }
  return result;
}

describe('cutWindow', () => {
  it('cuts after the last line end, and the partial last line goes on in the next window', () => {
    expect(cutWindow(Buffer.from('one\ntwo\nthr'), false)).toEqual({ length: 8, newlines: 2, cutInsideLine: false });
  });

  it('takes the whole window at the end of the file, a last line without a line end included', () => {
    expect(cutWindow(Buffer.from('one\ntwo'), true)).toEqual({ length: 7, newlines: 1, cutInsideLine: false });
    expect(cutWindow(Buffer.from(''), true)).toEqual({ length: 0, newlines: 0, cutInsideLine: false });
  });

  it('cuts a window that is all one line inside it, and says so', () => {
    expect(cutWindow(Buffer.from('abcdef'), false)).toEqual({ length: 6, newlines: 0, cutInsideLine: true });
  });

  it('never cuts inside a UTF-8 character when a line is cut', () => {
    const euro = Buffer.from('ab€', 'utf8'); // € is E2 82 AC
    expect(cutWindow(euro.subarray(0, 3), false)).toMatchObject({ length: 2, cutInsideLine: true });
    expect(cutWindow(euro.subarray(0, 4), false)).toMatchObject({ length: 2, cutInsideLine: true });
    expect(cutWindow(euro, false)).toMatchObject({ length: 5, cutInsideLine: true });
  });

  it('moves a cut back over at most three bytes, whatever bytes that are not UTF-8 the window ends with', () => {
    expect(cutWindow(Buffer.from([0x61, 0x80, 0x80, 0x80, 0x80]), false)).toMatchObject({ length: 5 });
    expect(cutWindow(Buffer.from([0xe2]), false)).toMatchObject({ length: 1 });
  });

  it('numbers a window line as the file line it is', () => {
    expect(fileLineNumber(1, 1)).toBe(1);
    expect(fileLineNumber(1001, 5)).toBe(1005);
  });

  it('windows of any size give back the whole text, each line once, numbered as in the file (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 20 }), fc.boolean(), fc.integer({ min: 4, max: 40 }), (lines, finalNewline, windowBytes) => {
        const text = lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '');
        const cut = pieces(Buffer.from(text, 'utf8'), windowBytes);
        expect(cut.map((piece) => piece.text).join('')).toBe(text);
        let before = '';
        for (const piece of cut) {
          // Every piece starts on the line its first line is in the whole text.
          expect(piece.firstLine).toBe(before.split('\n').length);
          before += piece.text;
          // A piece ends at a line end, at the end of the text, or inside a line longer than the window.
          if (!piece.cutInsideLine && before.length < text.length) expect(piece.text.endsWith('\n')).toBe(true);
        }
      }),
    );
  });
});
