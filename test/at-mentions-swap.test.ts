import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { atMentions } from '../src/context/at-mentions.js';
import type { MentionTarget } from '../src/context/mention-target.js';
import { useTempWorkspace } from './tools/helpers.js';

/** What the next mention resolves to, as if the path was swapped after it was checked. */
let swapped: MentionTarget | undefined;

vi.mock('../src/context/mention-target.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/context/mention-target.js')>();
  return {
    ...original,
    resolveMentionTarget: async (cwd: string, userPath: string) => swapped ?? original.resolveMentionTarget(cwd, userPath),
  };
});

const ws = useTempWorkspace();
afterEach(() => {
  swapped = undefined;
});

async function inlined(text: string): Promise<string> {
  const [message] = await atMentions({ cwd: ws.root })([{ role: 'user', content: text }]);
  if (typeof message?.content !== 'string') throw new Error('expected string content');
  return message.content;
}

describe('atMentions when a mentioned file is swapped after it was checked', () => {
  it('notes a FIFO put in place of a regular file instead of waiting for a writer for ever', async () => {
    const fifo = path.join(ws.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    swapped = { kind: 'file', realPath: fifo, displayPath: 'pipe' };
    let settled = false;
    const result = inlined('@pipe').finally(() => {
      settled = true;
    });
    try {
      await expect.poll(() => settled, { timeout: 10_000 }).toBe(true);
      await expect(result).resolves.toBe("@pipe\n\n[@pipe not inlined: Path 'pipe' is not a regular file]");
    } finally {
      // A reader blocked on the FIFO is let go by a writer that opens and closes it.
      const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await writer?.close();
      await result.catch(() => undefined);
    }
  });

  it('does not inline what a symbolic link put on the way leads to outside the workspace', async () => {
    await symlink(ws.outside, path.join(ws.root, 'link'));
    swapped = { kind: 'file', realPath: path.join(ws.root, 'link', 'secret.txt'), displayPath: 'link/secret.txt' };
    const content = await inlined('@link/secret.txt');
    expect(content).not.toContain('top secret');
    expect(content).toBe("@link/secret.txt\n\n[@link/secret.txt not inlined: Path 'link/secret.txt' led outside the workspace when it was opened (a directory on it was replaced by a link)]");
  });
});
