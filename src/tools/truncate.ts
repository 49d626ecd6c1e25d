/**
 * Line- and byte-bounded truncation of text, keeping either the beginning
 * (`truncateHead`, for file contents) or the end (`truncateTail`, for command
 * output). Whole lines are kept; only when not even one whole line fits is a
 * single line cut at a UTF-8 character boundary (`partialLine: true`).
 */

export interface TruncationLimits {
  /** Maximum number of lines to keep. */
  maxLines: number;
  /** Maximum number of UTF-8 bytes to keep, counting the `\n` between lines. */
  maxBytes: number;
}

export interface TruncationResult {
  /** The kept text, without a truncation notice. */
  text: string;
  truncated: boolean;
  /** Which limit cut the text, or `null` when nothing was cut. */
  truncatedBy: 'lines' | 'bytes' | null;
  totalLines: number;
  totalBytes: number;
  shownLines: number;
  shownBytes: number;
  /** 1-based number of the first kept line (0 when nothing is shown). */
  firstShownLine: number;
  /** 1-based number of the last kept line (0 when nothing is shown). */
  lastShownLine: number;
  /** True when the only shown line had to be cut because it alone exceeds `maxBytes`. */
  partialLine: boolean;
}

/**
 * Splits text into lines. A trailing newline ends the last line instead of
 * starting an empty one, so `"a\nb\n"` has two lines and `""` has none.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Keeps the beginning of `text` within the limits. */
export function truncateHead(text: string, limits: TruncationLimits): TruncationResult {
  return truncate(text, limits, 'head');
}

/** Keeps the end of `text` within the limits. */
export function truncateTail(text: string, limits: TruncationLimits): TruncationResult {
  return truncate(text, limits, 'tail');
}

/** Longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8ByteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Longest suffix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character.
 * Walks back from the end only as far as the suffix reaches: a 100 MB line costs what its kept tail does.
 */
export function utf8Suffix(text: string, maxBytes: number): string {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    let from = start - 1;
    const code = text.charCodeAt(from);
    let size: number;
    if (code >= 0xdc00 && code <= 0xdfff && from > 0 && isHighSurrogate(text.charCodeAt(from - 1))) {
      from -= 1;
      size = 4;
    } else {
      size = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    }
    if (bytes + size > maxBytes) break;
    bytes += size;
    start = from;
  }
  return text.slice(start);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function truncate(text: string, limits: TruncationLimits, keep: 'head' | 'tail'): TruncationResult {
  const lines = splitLines(text);
  const totalLines = lines.length;
  const totalBytes = utf8ByteLength(text);
  const maxLines = Math.max(0, Math.floor(limits.maxLines));
  const maxBytes = Math.max(0, Math.floor(limits.maxBytes));

  if (totalLines <= maxLines && totalBytes <= maxBytes) {
    return {
      text,
      truncated: false,
      truncatedBy: null,
      totalLines,
      totalBytes,
      shownLines: totalLines,
      shownBytes: totalBytes,
      firstShownLine: totalLines > 0 ? 1 : 0,
      lastShownLine: totalLines,
      partialLine: false,
    };
  }

  const ordered = keep === 'head' ? lines : [...lines].reverse();
  const kept: string[] = [];
  let keptBytes = 0;
  let truncatedBy: 'lines' | 'bytes' = 'lines';
  for (const line of ordered) {
    if (kept.length >= maxLines) {
      truncatedBy = 'lines';
      break;
    }
    const cost = utf8ByteLength(line) + (kept.length > 0 ? 1 : 0);
    if (keptBytes + cost > maxBytes) {
      truncatedBy = 'bytes';
      break;
    }
    kept.push(line);
    keptBytes += cost;
  }

  let partialLine = false;
  const nearestLine = ordered[0];
  if (kept.length === 0 && maxLines > 0 && nearestLine !== undefined && maxBytes > 0) {
    const cut = keep === 'head' ? utf8Prefix(nearestLine, maxBytes) : utf8Suffix(nearestLine, maxBytes);
    kept.push(cut);
    keptBytes = utf8ByteLength(cut);
    partialLine = true;
  }

  if (keep === 'tail') kept.reverse();
  const shownLines = kept.length;
  const firstShownLine = shownLines === 0 ? 0 : keep === 'head' ? 1 : totalLines - shownLines + 1;
  const lastShownLine = shownLines === 0 ? 0 : keep === 'head' ? shownLines : totalLines;

  return {
    text: kept.join('\n'),
    truncated: true,
    truncatedBy,
    totalLines,
    totalBytes,
    shownLines,
    shownBytes: keptBytes,
    firstShownLine,
    lastShownLine,
    partialLine,
  };
}
