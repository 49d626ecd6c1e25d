import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readLineWindow } from '../../src/tools/line-window.js';

const request = { firstLine: 1, maxLines: 2000, maxBytes: 50 * 1024, maxLineChars: 2000 };

/**
 * A file of `size` bytes ('x\n' lines) that a writer keeps appending to: every read finds more,
 * and fstat reports `size` at first and the grown size after. Reading past `size` more than
 * `maxReadsPastSize` times fails the test instead of spinning for ever.
 */
function growingFile(size: number, maxReadsPastSize = 100): FileHandle {
  let readsPastSize = 0;
  let stats = 0;
  let appended = 0;
  const handle = {
    stat: async () => ({ size: stats++ === 0 ? size : size + appended }),
    read: async (buffer: Buffer, offset: number, length: number, position: number | null) => {
      if (position === null || position >= size) {
        readsPastSize += 1;
        if (readsPastSize > maxReadsPastSize) throw new Error('kept reading what was appended after the file was opened');
      }
      buffer.fill('x\n', offset, offset + length);
      appended += length;
      return { bytesRead: length, buffer };
    },
  };
  return handle as unknown as FileHandle;
}

describe('readLineWindow', () => {
  it('reads only the bytes the file held when it was opened, so a writer faster than the reader cannot keep it going', async () => {
    const window = await readLineWindow(growingFile(200 * 1024), request);
    expect(window.totalLines).toBe(100 * 1024);
    expect(window.grewWhileRead).toBe(true);
  });

  it('does not say the file grew when it did not', async () => {
    let position = 0;
    const content = Buffer.from('a\nb\n');
    const handle = {
      stat: async () => ({ size: content.length }),
      read: async (buffer: Buffer, offset: number, length: number, at: number | null) => {
        const start = at ?? position;
        const bytesRead = content.copy(buffer, offset, start, Math.min(content.length, start + length));
        position = start + bytesRead;
        return { bytesRead, buffer };
      },
    } as unknown as FileHandle;
    const window = await readLineWindow(handle, request);
    expect(window).toMatchObject({ lines: ['a', 'b'], totalLines: 2, grewWhileRead: false });
  });
});
