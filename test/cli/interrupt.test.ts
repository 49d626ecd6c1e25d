import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { onInterrupt, type SignalSource, type StopSignal } from '../../src/cli/interrupt.js';
import { expectValidHistory } from '../support/history.js';
import { buildCli, startCli, waitFor } from './support/cli-process.js';
import { asJsonArray, tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

/** Writes started.txt with a tool, then streams "Working on it" and stalls until aborted. */
const stallingScript: ScriptFile = {
  prompt: 'Do something slow.',
  turns: [
    { text: 'Starting.', toolCalls: [{ name: 'write', input: { path: 'started.txt', content: 'yes' } }] },
    { text: ['Working ', 'on it'], stall: true },
  ],
};

async function workspaceAndScript(name: string, script: ScriptFile = stallingScript): Promise<{ cwd: string; file: string }> {
  const cwd = await tempDir();
  return { cwd, file: await writeScript(dir, name, script) };
}

describe('Ctrl+C during loopchart run', () => {
  it('aborts the run: exit 130, and --json still prints a RunResult with outcome aborted and a valid history', async () => {
    const { cwd, file } = await workspaceAndScript('stall-json.json');
    const cli = startCli(['run', file, '--cwd', cwd, '--json']);
    await waitFor(() => existsSync(path.join(cwd, 'started.txt')), 'the first tool call');
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.done;

    expect(code).toBe(130);
    expect(stderr).toContain('interrupted');
    const result = JSON.parse(stdout);
    expect(result.outcome).toBe('aborted');
    expect(result.messages.slice(0, 3).map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool']);
    await expectValidHistory(result.messages);
    expect(await readFile(path.join(cwd, 'started.txt'), 'utf8')).toBe('yes');
  });

  it('keeps what the model streamed before the abort, and --events ends with run-end', async () => {
    const { cwd, file } = await workspaceAndScript('stall-events.json');
    const cli = startCli(['run', file, '--cwd', cwd, '--events']);
    await waitFor(() => cli.stdout.includes('"text":"on it"'), 'the streamed text');
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;

    expect(code).toBe(130);
    const events = JSON.parse(asJsonArray(stdout));
    const last = events.at(-1);
    expect(last.type).toBe('run-end');
    expect(last.result.outcome).toBe('aborted');
    expect(last.result.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Working on it' }] });
    await expectValidHistory(last.result.messages);
  });

  it('aborts a long tool call: the call gets an error result and the run ends aborted', async () => {
    const { cwd, file } = await workspaceAndScript('stall-bash.json', {
      prompt: 'Wait.',
      tools: ['bash'],
      turns: [{ toolCalls: [{ name: 'bash', input: { command: 'touch sleeping && sleep 30' } }] }, { text: 'never' }],
    });
    const cli = startCli(['run', file, '--cwd', cwd, '--json']);
    await waitFor(() => existsSync(path.join(cwd, 'sleeping')), 'the bash command to start');
    const started = Date.now();
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;

    expect(code).toBe(130);
    // The command sleeps 30 s; Ctrl+C does not wait for it.
    expect(Date.now() - started).toBeLessThan(20_000);
    const result = JSON.parse(stdout);
    expect(result.outcome).toBe('aborted');
    const toolMessage = result.messages.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.content[0].output).toMatchObject({ type: 'error-text', value: expect.stringMatching(/abort|interrupt/i) });
    await expectValidHistory(result.messages);
  });

  it('says on stderr that the run was interrupted and how to exit at once, and the summary says aborted', async () => {
    const { cwd, file } = await workspaceAndScript('stall-human.json');
    const cli = startCli(['run', file, '--cwd', cwd]);
    // stdout is a pipe here, so a step's text appears only once kept: wait for the first step's tool instead.
    await waitFor(() => /✓ write/.test(cli.stderr), 'the first step to finish');
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.done;

    expect(code).toBe(130);
    // The second step's text is kept by the abort, whatever of it had streamed.
    expect(stdout).toMatch(/^Starting\.\n(Working (on it)?\n)?$/);
    expect(stderr).toContain('press Ctrl+C again to exit at once');
    expect(stderr).toMatch(/^aborted · 2 steps/m);
  });
});

describe('onInterrupt', () => {
  function fakeProcess() {
    const listeners = new Map<string, Set<() => void>>();
    const source: SignalSource = {
      on: (signal, listener) => listeners.set(signal, (listeners.get(signal) ?? new Set()).add(listener)),
      off: (signal, listener) => listeners.get(signal)?.delete(listener),
    };
    const count = () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0);
    return { source, signal: (name: StopSignal = 'SIGINT') => listeners.get(name)?.forEach((listener) => listener()), count };
  }

  it('calls first for the first SIGINT, SIGTERM or SIGHUP, with it, and again for every later one', () => {
    const { source, signal } = fakeProcess();
    const first = vi.fn();
    const again = vi.fn();
    onInterrupt(source, { first, again });
    signal('SIGTERM');
    expect(first.mock.calls).toEqual([['SIGTERM']]);
    expect(again).not.toHaveBeenCalled();
    signal('SIGINT');
    signal('SIGHUP');
    expect(again.mock.calls).toEqual([['SIGINT'], ['SIGHUP']]);
  });

  it('stops listening when disposed', () => {
    const { source, count } = fakeProcess();
    const dispose = onInterrupt(source, { first: () => {}, again: () => {} });
    expect(count()).toBe(3);
    dispose();
    expect(count()).toBe(0);
  });
});
