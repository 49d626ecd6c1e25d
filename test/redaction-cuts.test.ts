/**
 * Redaction survives every cut: a text holding a key, cut at every offset in
 * and around the key, keeps no piece of it longer than three characters
 * (three characters tell nothing of a key; "all but one character" was the bug).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncateMiddle } from '../src/resilience/truncate-output.js';
import { redact } from '../src/secrets/redact.js';
import { BASH_MAX_OUTPUT_BYTES, bashOutputText } from '../src/tools/bash-output.js';
import { OutputTail } from '../src/tools/output-tail.js';

/** Keys of capital letters, and text around them of other characters: any piece of the key found in the output came from the key. */
const keys = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 8, maxLength: 40 });
const filler = (length: number) => '.'.repeat(Math.max(0, length));

function piecesLeft(text: string, key: string): string[] {
  const pieces = Array.from({ length: key.length - 3 }, (_, start) => key.slice(start, start + 4));
  return [...new Set(pieces.filter((piece) => text.includes(piece)))];
}

/** Every placement of the key that puts `cutAt` (an offset in the text) inside it, or just at either end. */
function placementsAcross(cutAt: number, key: string): number[] {
  return Array.from({ length: key.length + 1 }, (_, inside) => cutAt - inside);
}

describe('redaction and cuts', () => {
  it('bash: a key across its 50 KB tail cut, or across the start of what its output buffer kept, leaves no piece', () => {
    const capacity = BASH_MAX_OUTPUT_BYTES * 2;
    const total = capacity + 4096;
    fc.assert(
      fc.property(keys, (key) => {
        for (const start of [...placementsAcross(total - BASH_MAX_OUTPUT_BYTES, key), ...placementsAcross(total - capacity, key)]) {
          const tail = new OutputTail(capacity);
          tail.append(Buffer.from(`${filler(start)}${key}${filler(total - start - key.length)}\n`));
          const shown = bashOutputText(tail.snapshot(), [key]);
          expect(piecesLeft(shown, key), `key at ${start}`).toEqual([]);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('bash: the end of a key at the start of what its output buffer kept of one line is redacted, though redaction leaves nothing for the 50 KB cut', () => {
    const capacity = BASH_MAX_OUTPUT_BYTES * 2;
    fc.assert(
      fc.property(keys, fc.integer({ min: 4, max: 40 }), (key, kept) => {
        fc.pre(kept < key.length);
        // The buffer keeps the key's last `kept` characters, then copies of the key that redaction shrinks below the 50 KB cut.
        const copies = Math.ceil(capacity / key.length) + 1;
        const tail = new OutputTail(capacity);
        tail.append(Buffer.from(`${filler(4096)}${key}${`${key} `.repeat(copies)}`));
        const snapshot = tail.snapshot();
        expect(snapshot.startsMidLine).toBe(true);
        expect(piecesLeft(bashOutputText(snapshot, [key]), key)).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it('the middle cut: a key across where the head or the tail of a long line is cut, redacted after the cut, leaves no piece', () => {
    const limits = { maxLines: 10, maxBytes: 200 };
    const total = 1000;
    fc.assert(
      fc.property(keys, (key) => {
        for (const start of [...placementsAcross(limits.maxBytes / 2, key), ...placementsAcross(total - limits.maxBytes / 2, key)]) {
          const cut = truncateMiddle(`${filler(start)}${key}${filler(total - start - key.length)}`, limits);
          expect(cut).toContain('cut here');
          expect(piecesLeft(redact(cut, [key]), key), `key at ${start}`).toEqual([]);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a preview: a key across where a preview is cut (…), redacted after the cut, leaves no piece', () => {
    fc.assert(
      fc.property(keys, fc.nat({ max: 20 }), (key, before) => {
        const text = `${filler(before)}${key}${filler(20)}`;
        for (const at of placementsAcross(before + key.length, key)) {
          expect(piecesLeft(redact(`${text.slice(0, at)}…`, [key]), key)).toEqual([]);
          expect(piecesLeft(redact(`…${text.slice(at)}`, [key]), key)).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });
});
