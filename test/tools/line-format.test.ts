import { describe, expect, it } from 'vitest';
import { cutLongLine, ignoredNotice, numberLines, stripCarriageReturn, unreadNotice, unwalkedDirectoryNotice } from '../../src/tools/line-format.js';

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

describe('unreadNotice', () => {
  it('names what could not be read, sorted, with the reason, and counts the rest past five', () => {
    const unread = ['g', 'f', 'e', 'd', 'c', 'b', 'a'].map((name) => ({ path: `dir/${name}`, code: name === 'a' ? 'EIO' : 'EACCES' }));
    expect(unreadNotice('file', unread, 'searched')).toBe(
      '[7 files could not be read, so they were not searched: dir/a (input/output error), dir/b (permission denied), dir/c (permission denied), dir/d (permission denied), dir/e (permission denied), and 2 more]',
    );
  });

  it('says "it" of one directory, and gives an unknown code as it is', () => {
    expect(unreadNotice('directory', [{ path: 'x', code: 'EWEIRD' }], 'listed')).toBe('[1 directory could not be read, so what is in it was not listed: x (eweird)]');
    expect(unreadNotice('directory', [{ path: 'x\ny', code: undefined }, { path: 'z', code: 'EPERM' }], 'searched')).toBe(
      '[2 directories could not be read, so what is in them was not searched: "x\\ny" (unreadable), z (permission denied)]',
    );
  });
});

describe('ignoredNotice', () => {
  it('counts the ignored matches, names the first five sorted, and says how to look inside an ignored directory', () => {
    expect(ignoredNotice(['dist/a.js'], 'listed')).toBe(
      '[1 matching file ignored by .gitignore not listed: dist/a.js; read and grep take such a file as path, and glob lists in an ignored directory named as path]',
    );
    expect(ignoredNotice(['f', 'e', 'd', 'c', 'b', 'a', 'g'], 'searched')).toBe(
      '[7 files ignored by .gitignore not searched: a, b, c, d, e, and 2 more; give one of them, or an ignored directory, as path to search it]',
    );
  });
});

describe('unwalkedDirectoryNotice', () => {
  it('names node_modules or .git when a pattern segment is one, with the path to give instead, from the directory searched', () => {
    expect(unwalkedDirectoryNotice('node_modules/zod/**')).toBe("[node_modules is not walked into from above: give path 'node_modules' (or a directory inside it) to look there]");
    expect(unwalkedDirectoryNotice('node_modules/zod/*.json', 'packages/a')).toBe(
      "[node_modules is not walked into from above: give path 'packages/a/node_modules' (or a directory inside it) to look there]",
    );
    expect(unwalkedDirectoryNotice('packages/app/node_modules/*.json')).toBe(
      "[node_modules is not walked into from above: give path 'packages/app/node_modules' (or a directory inside it) to look there]",
    );
    expect(unwalkedDirectoryNotice('.git/*')).toBe("[.git is not walked into from above: give path '.git' (or a directory inside it) to look there]");
  });

  it('names no path it cannot know, for a wildcard before the directory', () => {
    expect(unwalkedDirectoryNotice('packages/*/node_modules/**')).toBe(
      '[node_modules is not walked into from above: give a node_modules directory itself (or a directory inside it) as path to look there]',
    );
    expect(unwalkedDirectoryNotice('**/.git/*')).toBe('[.git is not walked into from above: give a .git directory itself (or a directory inside it) as path to look there]');
  });

  it('says nothing of a pattern that only looks like one', () => {
    expect(unwalkedDirectoryNotice('src/**')).toBeUndefined();
    expect(unwalkedDirectoryNotice('node_modules.txt')).toBeUndefined();
    expect(unwalkedDirectoryNotice('docs/.github/*.yml')).toBeUndefined();
  });
});
