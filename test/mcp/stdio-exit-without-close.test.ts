/**
 * A stdio server runs in a process group of its own, so the terminal's Ctrl+C no longer reaches it
 * with `loopchart run`: a process that exits without close() (a second Ctrl+C) kills the groups it
 * did not stop, or the server and what it started outlive it.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { processIsGone, waitUntilGone } from '../fixtures/mcp/stdio-fixture.js';

const TSX = path.join(import.meta.dirname, '../../node_modules/.bin/tsx');
const SCRIPT = path.join(import.meta.dirname, '../fixtures/mcp/exit-without-close.ts');

it.runIf(process.platform !== 'win32')('a process that exits without close() leaves no server, nor what the server started, behind', async () => {
  const { stdout } = await promisify(execFile)(TSX, [SCRIPT]).catch((error: { stdout: string }) => error);
  const { server, child, stateDir } = JSON.parse(stdout) as { server: number; child: number; stateDir: string };
  try {
    // Killed as the process exited: gone at once, but a loaded machine may take a while to show it.
    await waitUntilGone(server, 20_000).catch(() => undefined);
    await waitUntilGone(child, 20_000).catch(() => undefined);
    expect({ server: processIsGone(server), child: processIsGone(child) }).toEqual({ server: true, child: true });
  } finally {
    for (const pid of [server, child]) if (!processIsGone(pid)) process.kill(pid, 'SIGKILL');
    await rm(stateDir, { recursive: true, force: true });
  }
}, 60_000);
