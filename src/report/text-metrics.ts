/** Widths of characters in ems, for a sans-serif system font: narrow, wide, and everything else. */
const NARROW = new Set([...'iIjlft.,:;|!\'"()[]{} ']);
const WIDE = new Set([...'mwMWOQGDHNU@%&']);

/**
 * An estimate of the width in pixels of one line of text, for laying out the
 * diagram without a browser. It errs on the wide side, so that a label fits
 * the box it gets in every common system font.
 *
 * @example
 * estimateTextWidth('toolExec', 13) // ≈ 52
 * estimateTextWidth('toolExec', 12, { monospace: true }) // 8 × 0.62 × 12 ≈ 60
 */
export function estimateTextWidth(text: string, fontSize: number, options: { bold?: boolean; monospace?: boolean } = {}): number {
  if (options.monospace) return text.length * 0.62 * fontSize;
  let ems = 0;
  for (const character of text) {
    if (NARROW.has(character)) ems += 0.32;
    else if (WIDE.has(character)) ems += 0.86;
    else if (character >= 'A' && character <= 'Z') ems += 0.68;
    else ems += 0.56;
  }
  return ems * fontSize * (options.bold ? 1.07 : 1);
}
