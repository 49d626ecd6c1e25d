import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidHistory } from '../support/history.js';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

const writeNote = { id: 'w', name: 'write', input: { path: 'note.txt', content: 'hello' } };
const listRoot = { name: 'ls', input: {} };

async function run(name: string, script: ScriptFile, extra: string[] = []) {
  const cwd = await tempDir();
  const file = await writeScript(dir, name, script);
  const result = await runCli(['run', file, '--cwd', cwd, '--json', ...extra]);
  return { ...result, cwd, json: result.stdout ? JSON.parse(result.stdout) : undefined };
}

const asksForWrites: ScriptFile = {
  prompt: 'Write a note.',
  approval: { ask: ['write'] },
  turns: [{ toolCalls: [writeNote] }, { text: 'Done.' }],
};

describe.concurrent('tool-call approvals in loopchart run', () => {
  it('without --yes and without a terminal, a call that asks is denied: the model is told, stderr names --yes', async () => {
    const { code, stderr, cwd, json } = await run('deny.json', asksForWrites);
    expect(code).toBe(0);
    expect(existsSync(path.join(cwd, 'note.txt'))).toBe(false);
    expect(stderr).toContain('denied: write {"path":"note.txt","content":"hello"}: it needs approval and there is no terminal to ask');
    expect(stderr).toContain('run with --yes to approve such calls');
    const tool = json.messages.find((message: { role: string }) => message.role === 'tool');
    expect(tool.content[0].output).toEqual({ type: 'error-text', value: 'The user denied this tool call: no one could approve it (loopchart runs without a terminal and without --yes)' });
    await expectValidHistory(json.messages);
  });

  it('the summary says "1 denied", not "0 tool calls", when the only call was denied', async () => {
    const file = await writeScript(dir, 'summary.json', asksForWrites);
    const { code, stderr } = await runCli(['run', file, '--cwd', await tempDir()]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^completed · 2 steps · 1 denied · \d+ tokens · [\d.]+ s$/m);
    expect(stderr).not.toContain('0 tool calls');
  });

  it('--yes approves it and the call runs', async () => {
    const { code, stderr, cwd } = await run('approve.json', asksForWrites, ['--yes']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(existsSync(path.join(cwd, 'note.txt'))).toBe(true);
  });

  it('onDeny: stop ends the run denied, exit 8', async () => {
    const { code, json } = await run('stop.json', { ...asksForWrites, onDeny: 'stop' });
    expect(code).toBe(8);
    expect(json.outcome).toBe('denied');
    await expectValidHistory(json.messages);
  });

  it('--yes does not override a deny rule', async () => {
    const { code, cwd, json } = await run('deny-rule.json', { ...asksForWrites, approval: { deny: ['wr*'] } }, ['--yes']);
    expect(code).toBe(0);
    expect(existsSync(path.join(cwd, 'note.txt'))).toBe(false);
    const tool = json.messages.find((message: { role: string }) => message.role === 'tool');
    expect(tool.content[0].output.value).toBe('Tool call denied by the approval policy.');
  });

  it('a doom loop with action ask goes on with --yes, and ends doom-loop (exit 4) without it', async () => {
    const script = {
      prompt: 'List.',
      doomLoop: { threshold: 3, action: 'ask' as const },
      turns: [{ toolCalls: [listRoot] }, { toolCalls: [listRoot] }, { toolCalls: [listRoot] }, { text: 'Done.' }],
    };
    const approved = await run('doom-yes.json', script, ['--yes']);
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({ outcome: 'completed', toolCallCount: 3 });
    const denied = await run('doom-no.json', script);
    expect(denied.code).toBe(4);
    expect(denied.json.outcome).toBe('doom-loop');
  });

  it('a script without approval rules never asks', async () => {
    const { code, stderr, cwd } = await run('no-rules.json', { prompt: 'Write a note.', turns: [{ toolCalls: [writeNote] }, { text: 'Done.' }] });
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(existsSync(path.join(cwd, 'note.txt'))).toBe(true);
  });
});
