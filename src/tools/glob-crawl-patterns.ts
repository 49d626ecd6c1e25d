import picomatch from 'picomatch';

/**
 * Globs for walking the directory tree in place of a pattern from the model:
 * together they match every path `pattern` can match (and more), and cost
 * nothing to match. Literal segments are kept, so the walk still stays below
 * `src/` for `src/**\/*.ts`; every other segment becomes `*`, and from the
 * first `**` (or a segment that may span a `/`, like `{a/b,c}`) on, `**`. The
 * pattern itself is then matched against what the walk found, in the regex
 * worker. `.`, `..` and empty segments never name a path below the search
 * directory, so they become `*` too and the walk never leaves it. A negated
 * pattern (`!x`), one with a `|` (outside balanced parentheses picomatch reads
 * it as "or" across segments) and a name-only one (`basename`, matched at any
 * depth) walk it all.
 *
 * @example
 * crawlPatternsFor('src/*a*a*b/index.ts') // ["src/*\/index.ts"]
 * crawlPatternsFor('*.{ts,js}')           // ["*"]
 * crawlPatternsFor('pkg/**\/*.ts')         // ["pkg", "pkg/**"]
 */
export function crawlPatternsFor(pattern: string, { basename = false }: { basename?: boolean } = {}): string[] {
  if (basename) return ['**'];
  const scanned = picomatch.scan(pattern, { parts: true });
  if (scanned.negated || pattern.includes('|')) return ['**'];
  const parts = scanned.parts && scanned.parts.length > 0 ? scanned.parts : [pattern];
  const crawl: string[] = [];
  for (const part of parts) {
    if (part.includes('**') || part.includes('/')) {
      // `x/**` also matches `x` itself.
      return crawl.length === 0 ? ['**'] : [crawl.join('/'), `${crawl.join('/')}/**`];
    }
    crawl.push(isLiteralName(part) ? part : '*');
  }
  return [crawl.join('/')];
}

function isLiteralName(part: string): boolean {
  if (part === '' || part === '.' || part === '..' || part.includes('\\')) return false;
  const scanned = picomatch.scan(part);
  return !scanned.isGlob && !scanned.negated;
}
