import { describe, expect, it } from 'vitest';
import { throwIfAborted } from '../../src/tools/abort.js';
import { looksBinary } from '../../src/tools/binary.js';
import { endsLinesWithCrlfOnly, findOccurrences, findOccurrencesAnyLineEnding, lineNumberAt, replaceOccurrences, replaceSpans, toCrlf } from '../../src/tools/exact-replace.js';
import { describeFsError } from '../../src/tools/fs-errors.js';
import { firstInvalidUtf8 } from '../../src/tools/invalid-utf8.js';
import { displayName } from '../../src/tools/line-format.js';
import { parseProcStat } from '../../src/tools/process-group.js';
import { compileSearchPattern, escapeRegExp } from '../../src/tools/search-pattern.js';

describe('looksBinary', () => {
  it('flags content with a NUL byte in the first 8 KB', () => {
    expect(looksBinary(Buffer.from('plain text\n'))).toBe(false);
    expect(looksBinary(Buffer.from([0x68, 0x00, 0x69]))).toBe(true);
  });

  it('ignores NUL bytes after the first 8 KB', () => {
    const content = Buffer.concat([Buffer.alloc(8192, 0x61), Buffer.from([0])]);
    expect(looksBinary(content)).toBe(false);
  });
});

describe('displayName', () => {
  it('leaves a plain name alone and quotes one with a control character, a bidirectional override or a leading quote', () => {
    expect(displayName('src/a b.ts')).toBe('src/a b.ts');
    expect(displayName('a\nb')).toBe('"a\\nb"');
    expect(displayName('evil\u202etxt.exe')).toBe('"evil\\u202etxt.exe"');
    expect(displayName('\u0085x')).toBe('"\\u0085x"');
    expect(displayName('"x"')).toBe('"\\"x\\""');
  });
});

describe('firstInvalidUtf8', () => {
  it('finds the first byte that is not UTF-8, with its line, passing over a U+FFFD the text really holds', () => {
    expect(firstInvalidUtf8(Buffer.from('café\n'))).toBeUndefined();
    expect(firstInvalidUtf8(Buffer.from('ok\ncaf\xe9', 'latin1'))).toEqual({ byteOffset: 6, byte: 0xe9, line: 2 });
    expect(firstInvalidUtf8(Buffer.concat([Buffer.from('a\uFFFDb\n\uFFFD\n'), Buffer.from([0xff])]))).toEqual({ byteOffset: 10, byte: 0xff, line: 3 });
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xe2, 0x82]))).toEqual({ byteOffset: 1, byte: 0xe2, line: 1 });
  });
});

describe('exact replacement', () => {
  it('finds non-overlapping occurrences', () => {
    expect(findOccurrences('aaaa', 'aa')).toEqual([0, 2]);
    expect(findOccurrences('abc', 'x')).toEqual([]);
    expect(findOccurrences('abc', '')).toEqual([]);
  });

  it('replaces literally, without $ patterns', () => {
    expect(replaceOccurrences('a-a', 'a', [0, 2], '$&$1')).toBe('$&$1-$&$1');
    expect(replaceOccurrences('a-a', 'a', [2], 'b')).toBe('a-b');
  });

  it('computes 1-based line numbers', () => {
    expect(lineNumberAt('a\nb\nc', 0)).toBe(1);
    expect(lineNumberAt('a\nb\nc', 4)).toBe(3);
  });

  it('converts line endings to CRLF without doubling existing ones', () => {
    expect(toCrlf('a\nb\r\nc')).toBe('a\r\nb\r\nc');
  });

  it('finds text whose line breaks are LF where the text has CRLF, LF or both, and no regex meaning in it', () => {
    expect(findOccurrencesAnyLineEnding('a\r\nb\nc a\nb\nc', 'a\nb\nc')).toEqual([{ index: 0, length: 6 }, { index: 7, length: 5 }]);
    expect(findOccurrencesAnyLineEnding('x.*(\r\n)$ x', '.*(\n)$')).toEqual([{ index: 1, length: 7 }]);
    expect(findOccurrencesAnyLineEnding('abc', 'a.c\n')).toEqual([]);
    expect(replaceSpans('a\r\nb-a\nb', [{ index: 0, length: 4 }, { index: 5, length: 3 }], '$&')).toBe('$&-$&');
  });

  it('tells a text whose every line break is CRLF from one with LF breaks or none', () => {
    expect(endsLinesWithCrlfOnly('a\r\nb\r\nc')).toBe(true);
    expect(endsLinesWithCrlfOnly('a\r\nb\nc\r\n')).toBe(false);
    expect(endsLinesWithCrlfOnly('\na\r\n')).toBe(false);
    expect(endsLinesWithCrlfOnly('a\rb')).toBe(false);
    expect(endsLinesWithCrlfOnly('')).toBe(false);
  });
});

describe('compileSearchPattern', () => {
  it('compiles regular expressions, optionally case-insensitive', () => {
    expect(compileSearchPattern('fo+').test('foo')).toBe(true);
    expect(compileSearchPattern('FOO', { ignoreCase: true }).test('foo')).toBe(true);
  });

  it('escapes the pattern in literal mode', () => {
    expect(compileSearchPattern('a.b(', { literal: true }).test('a.b(')).toBe(true);
    expect(compileSearchPattern('a.b', { literal: true }).test('axb')).toBe(false);
    expect(new RegExp(escapeRegExp('[x]*?+^$|\\/-{}')).test('[x]*?+^$|\\/-{}')).toBe(true);
  });

  it('rejects an invalid regular expression with a message quoting it', () => {
    expect(() => compileSearchPattern('foo(')).toThrow(/Invalid regular expression 'foo\('/);
  });
});

describe('describeFsError', () => {
  it('turns known error codes into path-relative messages', () => {
    const missing = Object.assign(new Error('ENOENT: raw'), { code: 'ENOENT' });
    expect(describeFsError(missing, 'a.txt').message).toBe("Path 'a.txt' does not exist");
    const denied = Object.assign(new Error('EACCES: raw'), { code: 'EACCES' });
    expect(describeFsError(denied, 'a.txt').message).toBe("Permission denied for 'a.txt'");
  });
});

describe('throwIfAborted', () => {
  it('throws an Error naming the operation only once aborted', () => {
    const controller = new AbortController();
    expect(() => throwIfAborted(controller.signal, 'grep')).not.toThrow();
    controller.abort();
    expect(() => throwIfAborted(controller.signal, 'grep')).toThrow('grep was aborted');
  });
});

describe('parseProcStat', () => {
  it('reads state and process group even when the command name has spaces and parentheses', () => {
    expect(parseProcStat('42 (sleep) S 1 42 7 0')).toEqual({ state: 'S', processGroupId: 42 });
    expect(parseProcStat('43 (my (odd) cmd) Z 1 40 7 0')).toEqual({ state: 'Z', processGroupId: 40 });
  });
});
