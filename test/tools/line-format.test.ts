import { describe, expect, it } from 'vitest';
import { cutLongLine, numberLines, stripCarriageReturn } from '../../src/tools/line-format.js';

describe('numberLines', () => {
  it('right-aligns numbers in a six-wide column followed by a tab, like cat -n', () => {
    expect(numberLines(['a', 'b'], 9)).toBe('     9\ta\n    10\tb');
  });

  it('widens the column for numbers with more than six digits', () => {
    expect(numberLines(['x'], 1234567)).toBe('1234567\tx');
  });

  it('returns an empty string for no lines', () => {
    expect(numberLines([])).toBe('');
  });
});

describe('cutLongLine', () => {
  it('leaves short lines alone', () => {
    expect(cutLongLine('abc', 3)).toBe('abc');
  });

  it('cuts long lines and reports their full length', () => {
    expect(cutLongLine('abcdef', 3)).toBe('abc… [line cut: 6 chars]');
    expect(cutLongLine('abcd', 3, 9000)).toBe('abc… [line cut: 9000 chars]');
  });

  it('does not split a surrogate pair', () => {
    expect(cutLongLine('ab😀cd', 3)).toBe('ab… [line cut: 6 chars]');
  });
});

describe('stripCarriageReturn', () => {
  it('removes one trailing \\r only', () => {
    expect(stripCarriageReturn('a\r')).toBe('a');
    expect(stripCarriageReturn('a\r\r')).toBe('a\r');
    expect(stripCarriageReturn('a')).toBe('a');
  });
});
