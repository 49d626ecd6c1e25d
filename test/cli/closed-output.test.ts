import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileStore } from '../../src/persistence/file-store.js';
import { recordSession } from '../support/recorded-session.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cleanEnv, startCli, waitFor } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

/** A run that keeps writing to stdout (--events) and stderr (tool lines) for a while, in a temporary workspace. */
const longScript: ScriptFile = {
  prompt: 'Read the notes again and again.',
  files: { 'notes.md': 'a note\n' },
  turns: Array.from({ length: 40 }, (_, turn) => ({
    text: [`Reading `, `once `, `more (${turn}).`],
    chunkDelayMs: 20,
    toolCalls: [{ name: 'read', input: { path: 'notes.md' } }],
  })),
};

/** Starts the long run with its temporary files in a directory of their own, to see what it leaves there. */
async function startLongRun(args: string[] = []) {
  const tmp = await tempDir('loopchart-cli-tmp-');
  const file = await writeScript(dir, 'long.json', longScript);
  return { tmp, cli: startCli(['run', file, ...args], { env: cleanEnv({ TMPDIR: tmp }) }) };
}

describe('a reader that goes away (`loopchart run … | head -1`)', () => {
  it('stdout closed: the run stops as on a signal, removes its temporary workspace, and exits 141 without a stack trace', async () => {
    const { tmp, cli } = await startLongRun(['--events']);
    await waitFor(() => cli.stdout.includes('\n'), 'the first event');
    cli.child.stdout.destroy();
    const run = await cli.done;
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 141, signal: null });
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(tmp)).toEqual([]);
  }, 60_000);

  it('stderr closed: the run stops the same way instead of crashing on the unhandled EPIPE', async () => {
    const { tmp, cli } = await startLongRun();
    await waitFor(() => cli.stderr.includes('workspace:'), 'the workspace line');
    cli.child.stderr.destroy();
    const run = await cli.done;
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 141, signal: null });
    expect(await readdir(tmp)).toEqual([]);
  }, 60_000);
});

describe('SIGHUP (the terminal was closed)', () => {
  it('stops the run cleanly as SIGTERM does: the temporary workspace is removed, exit 129', async () => {
    const { tmp, cli } = await startLongRun();
    await waitFor(() => cli.stderr.includes('✓ read'), 'the first tool call');
    cli.child.kill('SIGHUP');
    const run = await cli.done;
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 129, signal: null });
    expect(run.stderr).toContain('loopchart: hung up (SIGHUP), stopping the run');
    expect(await readdir(tmp)).toEqual([]);
  }, 60_000);
});

describe('SIGHUP to loopchart open', () => {
  it('stops the server as Ctrl+C and SIGTERM do (exit 0), instead of dying on the signal', async () => {
    const sessions = path.join(await tempDir(), 'sessions');
    await recordSession(fileStore(sessions), 'hung-up');
    const cli = startCli(['open', 'hung-up', '--session', sessions]);
    await waitFor(() => cli.stderr.includes('open: http://127.0.0.1:') || cli.child.exitCode !== null, 'the page line');
    cli.child.kill('SIGHUP');
    const run = await cli.done;
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
  }, 60_000);
});
