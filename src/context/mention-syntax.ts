/**
 * Finding `@path` mentions in a user's text. Pure: nothing here touches the
 * file system; which mentions name real files is decided later.
 */

/** One `@path` mention. */
export interface Mention {
  /** The mention as written, `@` included. */
  written: string;
  /**
   * The paths to try, most literal first: the path as written, then without
   * the punctuation that ended the sentence around it (`@a.ts.` → `a.ts`).
   */
  candidates: string[];
}

/** `@` at the start or after whitespace or an opening bracket or quote; a path in quotes, or up to the next space or quote. */
const MENTION = /(?<=^|[\s([{"'])@(?:"([^"\n]+)"|([^\s"'`<>@][^\s"'`<>]*))/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;
const CODE = /```[\s\S]*?(?:```|$)|`[^`\n]*`/g;

/**
 * The `@path` mentions of a text, in order, each once. An `@` inside a word
 * (`a@b.com`), before a space, or inside code (backticks) is not a mention.
 *
 * @example
 * findMentions('Compare @src/a.ts with @"my notes.md", mail a@b.com.')
 * // [{ written: '@src/a.ts', candidates: ['src/a.ts'] },
 * //  { written: '@"my notes.md"', candidates: ['my notes.md'] }]
 */
export function findMentions(text: string): Mention[] {
  const mentions = new Map<string, Mention>();
  for (const match of text.replace(CODE, (code) => ' '.repeat(code.length)).matchAll(MENTION)) {
    const [written, quotedPath, barePath] = match;
    const candidates = quotedPath !== undefined ? [quotedPath] : bareCandidates(barePath ?? '');
    if (candidates.length > 0 && !mentions.has(written)) mentions.set(written, { written, candidates });
  }
  return [...mentions.values()];
}

function bareCandidates(path: string): string[] {
  const withoutPunctuation = path.replace(TRAILING_PUNCTUATION, '');
  if (withoutPunctuation === '') return [];
  return withoutPunctuation === path ? [path] : [path, withoutPunctuation];
}
