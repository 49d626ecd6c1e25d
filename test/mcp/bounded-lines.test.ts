import { describe, expect, it } from 'vitest';
import { boundedLines } from '../../src/mcp/bounded-lines.js';

/** Feeds `chunks` and returns what came out: lines as text, too-long heads as `!head`. */
function split(maxLineBytes: number, chunks: string[]): string[] {
  const out: string[] = [];
  const push = boundedLines(maxLineBytes, { line: (line) => out.push(line.toString()), tooLong: (head) => out.push(`!${head.toString()}`) });
  for (const chunk of chunks) push(Buffer.from(chunk));
  return out;
}

describe('boundedLines', () => {
  it('gives each whole line, however the chunks cut it, and holds back a last line without its newline', () => {
    expect(split(100, ['one\ntw', 'o\n', '\nthr', 'ee'])).toEqual(['one', 'two', '']);
  });

  it('reports a line past the bound once, with its head, skips the rest of it, and reads the next lines', () => {
    expect(split(4, ['ab', 'cdef', 'gh', 'ij\nok\n', 'toolong\nfine\n'])).toEqual(['!abcd', 'ok', '!tool', 'fine']);
  });

  it('takes a line of exactly the bound', () => {
    expect(split(4, ['abcd\n'])).toEqual(['abcd']);
  });
});
