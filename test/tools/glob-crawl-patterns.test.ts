import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { crawlPatternsFor } from '../../src/tools/glob-crawl-patterns.js';

describe('crawlPatternsFor', () => {
  it('keeps literal segments and turns every other segment into *', () => {
    expect(crawlPatternsFor('src/*a*a*b/index.ts')).toEqual(['src/*/index.ts']);
    expect(crawlPatternsFor('*.{ts,js}')).toEqual(['*']);
    expect(crawlPatternsFor('README.md')).toEqual(['README.md']);
    expect(crawlPatternsFor('x/*(a)/y')).toEqual(['x/*/y']);
  });

  it('walks everything below from the first ** or a segment that may span a /, and the segments before it', () => {
    expect(crawlPatternsFor('pkg/**/*.ts')).toEqual(['pkg', 'pkg/**']);
    expect(crawlPatternsFor('?/**')).toEqual(['*', '*/**']);
    expect(crawlPatternsFor('{a/b,c}/*.ts')).toEqual(['**']);
    expect(crawlPatternsFor('src/@(a/c)/x')).toEqual(['src', 'src/**']);
  });

  it('never names a path above or outside the search directory', () => {
    expect(crawlPatternsFor('../outside/*')).toEqual(['*/outside/*']);
    expect(crawlPatternsFor('/etc/*')).toEqual(['*/etc/*']);
    expect(crawlPatternsFor('a/../../b')).toEqual(['a/*/*/b']);
  });

  it('walks everything for a negated pattern, one with a | or a name-only one', () => {
    expect(crawlPatternsFor('!foo')).toEqual(['**']);
    expect(crawlPatternsFor('a/|*')).toEqual(['**']);
    expect(crawlPatternsFor('*.ts', { basename: true })).toEqual(['**']);
  });

  it('matches every path the pattern matches (fast-check)', () => {
    const segment = fc.stringMatching(/^[ab.*?{},!@()|+^$[\]\\-]{1,6}$/);
    const pattern = fc.array(fc.oneof(segment, fc.constant('**'), fc.constant('a')), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    // Names as a directory walk reports them: never `.` or `..`.
    const name = fc.stringMatching(/^[ab.(){},*?|!+[\]\\-]{1,4}$/).filter((part) => part !== '.' && part !== '..');
    const filePath = fc.array(name, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(pattern, filePath, (glob, file) => {
        let matches: boolean;
        try {
          matches = picomatch(glob, { dot: true })(file);
        } catch {
          return;
        }
        if (matches) expect(picomatch(crawlPatternsFor(glob), { dot: true })(file)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
