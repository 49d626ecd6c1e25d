import type { ToolResultPart } from 'ai';
import { describe, expect, it } from 'vitest';
import { truncateToolOutput } from '../src/resilience/truncate-output.js';

type ToolOutput = ToolResultPart['output'];
type ContentOutput = Extract<ToolOutput, { type: 'content' }>;

const limits = { maxLines: 2000, maxBytes: 50 * 1024 };
const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');
const content = (...value: ContentOutput['value']): ContentOutput => ({ type: 'content', value });
const texts = (output: ToolOutput) => (output as ContentOutput).value.map((part) => (part.type === 'text' ? part.text : `<${part.type}>`));
/** What the model is sent of a content output, roughly: its texts and its data. */
const sentBytes = (output: ToolOutput) => Buffer.byteLength(JSON.stringify(output));

describe('what the model sees of a content output (an MCP tool\'s text and images)', () => {
  it('is the output itself when every part together fits the limits', () => {
    const output = content({ type: 'text', text: lines(10) }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } });
    expect(truncateToolOutput(output, limits)).toBe(output);
  });

  it('cuts a text part far over the byte limit to its head and tail, with the marker text outputs get', () => {
    const huge = 'x'.repeat(10 * 2 ** 20);
    const cut = truncateToolOutput(content({ type: 'text', text: huge }), limits);
    expect(sentBytes(cut)).toBeLessThan(limits.maxBytes + 1024);
    const [text] = texts(cut);
    expect(text).toMatch(/^x+\n\[… 0 lines \(10\.0 MB\) cut here \(within a long line\) of 1 lines \(10\.0 MB\) …\]\nx+$/);
  });

  it('cuts by lines as well: the parts share one line budget', () => {
    const cut = truncateToolOutput(content({ type: 'text', text: lines(1500) }, { type: 'text', text: lines(1500) }), limits);
    const [first, second] = texts(cut);
    expect(first).toBe(lines(1500));
    expect(second!.split('\n')).toHaveLength(501);
    expect(second).toContain('cut here (lines 251-1250) of 1500 lines');
  });

  it('leaves out an image too large for what is left, saying what it was and how large; the parts after it still count', () => {
    const image = { type: 'file' as const, mediaType: 'image/png', data: { type: 'data' as const, data: 'A'.repeat(2 ** 20) } };
    const cut = truncateToolOutput(content({ type: 'text', text: 'before' }, image, { type: 'text', text: 'after' }), limits);
    expect(texts(cut)).toEqual(['before', '[… image/png file (1.0 MB) left out: this tool result is over the 50.0 KB or 2000 lines the model is shown of it …]', 'after']);
  });

  it('counts binary data as the base64 text it is sent as', () => {
    const image = { type: 'file' as const, mediaType: 'image/png', data: { type: 'data' as const, data: new Uint8Array(39 * 1024) } };
    // 39 KB of bytes is 52 KB of base64: over the 50 KB.
    expect(texts(truncateToolOutput(content(image), limits))).toEqual([expect.stringMatching(/^\[… image\/png file \(52\.0 KB\) left out/)]);
    const small = content({ ...image, data: { type: 'data', data: new Uint8Array(30 * 1024) } });
    expect(truncateToolOutput(small, limits)).toBe(small);
  });

  it('after a text part that had to be cut, names the parts left out in one line', () => {
    const cut = truncateToolOutput(content({ type: 'text', text: 'y'.repeat(100_000) }, { type: 'text', text: 'small' }, { type: 'image-data', data: 'A'.repeat(1000), mediaType: 'image/jpeg' }), limits);
    const [first, note, ...rest] = texts(cut);
    expect(first).toContain('cut here (within a long line)');
    expect(note).toBe('[… 2 more parts (1005 B) left out: this tool result is over the 50.0 KB or 2000 lines the model is shown of it …]');
    expect(rest).toEqual([]);
  });

  it('cannot be flooded with parts: a hundred thousand empty ones are cut like any other large output', () => {
    const cut = truncateToolOutput(content(...Array.from({ length: 100_000 }, () => ({ type: 'text' as const, text: '' }))), limits);
    const kept = texts(cut);
    expect(kept.length).toBeLessThan(4000);
    expect(kept.at(-1)).toMatch(/^\[… \d+ more parts \(0 B\) left out/);
  });

  it('passes a denial unchanged', () => {
    const denied: ToolOutput = { type: 'execution-denied', reason: 'no' };
    expect(truncateToolOutput(denied, limits)).toBe(denied);
  });
});
