import { readdir, readFile } from 'node:fs/promises';
import { AgentDisposedError, createAgent, fileStore } from '../../src/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { mockModel } from '../support/mock-model.js';
import { nextEvent } from '../support/next-event.js';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cleanEnv, runCli, startCli, waitFor } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const newSession = /^session: (\S+) \(continue it with --session (\S+) --resume \1\)$/m;

describe.concurrent('loopchart run --session / --resume', () => {
  it('prints a new session id, and a second invocation with --resume continues its history', async () => {
    const dir = await tempDir();
    const sessions = path.join(dir, 'sessions');
    const first = await writeScript(dir, 'first.json', { prompt: 'My name is Ada.', turns: [{ text: 'Hello, Ada.' }] });
    const second = await writeScript(dir, 'second.json', { prompt: 'What is my name?', turns: [{ text: 'Your name is Ada.' }] });

    const started = await runCli(['run', first, '--session', sessions, '--json']);
    expect(started.code).toBe(0);
    const [, id, shownDir] = newSession.exec(started.stderr) ?? [];
    expect(id).toBeDefined();
    expect(shownDir).toBe(sessions);
    expect(await readdir(sessions)).toEqual([`${id}.jsonl`]);

    const resumed = await runCli(['run', second, '--session', sessions, '--resume', id!, '--json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toBe(`session: ${id} resumed from ${sessions} (2 messages)\n`);
    const result = JSON.parse(resumed.stdout);
    expect(result).toMatchObject({ outcome: 'completed', text: 'Your name is Ada.' });
    expect(result.messages.map((message: { role: string; content: unknown }) => [message.role, JSON.stringify(message.content)])).toEqual([
      ['user', '"My name is Ada."'],
      ['assistant', expect.stringContaining('Hello, Ada.')],
      ['user', '"What is my name?"'],
      ['assistant', expect.stringContaining('Your name is Ada.')],
    ]);
  });

  it('finishes the run a killed process was in the middle of, and does not send the new prompt', async () => {
    const dir = await tempDir();
    const sessions = path.join(dir, 'sessions');
    const stalls = await writeScript(dir, 'stalls.json', {
      prompt: 'List the files, then sum up.',
      files: { 'a.txt': 'a' },
      turns: [{ text: 'Listing.', toolCalls: [{ id: 'call_ls', name: 'ls', input: {} }] }, { text: 'Thinking', stall: true }],
    });
    const finishes = await writeScript(dir, 'finishes.json', { prompt: 'never sent', turns: [{ text: 'There is one file, a.txt.' }] });

    // A workspace of the test's own: the killed process cannot remove a temporary one.
    const killed = startCli(['run', stalls, '--session', sessions, '--cwd', await tempDir()]);
    // A tool result is reported once its step boundary is on disk.
    await waitFor(() => /✓ ls/.test(killed.stderr), 'the first step to be durable');
    killed.child.kill('SIGKILL');
    await killed.done;
    const [, id] = newSession.exec(killed.stderr) ?? [];
    expect(id).toBeDefined();

    const resumed = await runCli(['run', finishes, '--session', sessions, '--resume', id!, '--json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`session: ${id} resumed from ${sessions}`);
    expect(resumed.stderr).toContain('session: finished the run it was in the middle of; the prompt was not sent (resume again to send it)');
    const result = JSON.parse(resumed.stdout);
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('There is one file, a.txt.');
    expect(result.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(result.messages)).not.toContain('never sent');
  });

  it('refuses to resume a session that is not there', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'hi.json', { prompt: 'hi', turns: [{ text: 'Hello.' }] });
    const { code, stdout, stderr } = await runCli(['run', script, '--session', dir, '--resume', 'nope', '--json']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--resume nope: there is no such session in ${dir} (no nope.jsonl)`);
  });
});

describe.concurrent('the session id for scripts, --continue and LOOPCHART_SESSION_DIR', () => {
  const hello = { prompt: 'My name is Ada.', turns: [{ text: 'Hello, Ada.' }] };

  it('names the session in --json, in run-start of --events and in the summary line', async () => {
    const dir = await tempDir();
    const sessions = path.join(dir, 'sessions');
    const script = await writeScript(dir, 'hello.json', hello);

    const json = await runCli(['run', script, '--session', sessions, '--json']);
    const [, id] = newSession.exec(json.stderr) ?? [];
    expect(JSON.parse(json.stdout).sessionId).toBe(id);

    const events = await runCli(['run', script, '--session', sessions, '--events']);
    const [, eventsId] = newSession.exec(events.stderr) ?? [];
    const runStart = events.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string }).find((event) => event?.type === 'run-start');
    expect(runStart).toMatchObject({ type: 'run-start', sessionId: eventsId });

    const human = await runCli(['run', script, '--session', sessions]);
    const [, humanId] = newSession.exec(human.stderr) ?? [];
    expect(human.stderr).toMatch(new RegExp(`^completed · 1 step · .* · session ${humanId}$`, 'm'));
  }, 60_000);

  it('--continue (-c) resumes the session of the directory written to last', async () => {
    const dir = await tempDir();
    const sessions = path.join(dir, 'sessions');
    const older = await writeScript(dir, 'older.json', { prompt: 'I am the older one.', turns: [{ text: 'Noted.' }] });
    const newer = await writeScript(dir, 'newer.json', { prompt: 'I am the newer one.', turns: [{ text: 'Noted too.' }] });
    const next = await writeScript(dir, 'next.json', { prompt: 'Who are you talking to?', turns: [{ text: 'The newer one.' }] });
    await runCli(['run', older, '--session', sessions]);
    const [, newerId] = newSession.exec((await runCli(['run', newer, '--session', sessions])).stderr) ?? [];

    for (const flag of ['--continue', '-c']) {
      const continued = await runCli(['run', next, '--session', sessions, flag, '--json']);
      expect(continued.code).toBe(0);
      expect(continued.stderr).toContain(`session: ${newerId} resumed from ${sessions}`);
      const result = JSON.parse(continued.stdout);
      expect(result.sessionId).toBe(newerId);
      expect(JSON.stringify(result.messages)).toContain('I am the newer one.');
      expect(JSON.stringify(result.messages)).not.toContain('I am the older one.');
    }
  }, 60_000);

  it('keeps sessions in LOOPCHART_SESSION_DIR without --session, and not with --no-session', async () => {
    const dir = await tempDir();
    const sessions = path.join(dir, 'from-env');
    const env = cleanEnv({ LOOPCHART_SESSION_DIR: sessions });
    const script = await writeScript(dir, 'hello.json', hello);
    const next = await writeScript(dir, 'next.json', { prompt: 'What is my name?', turns: [{ text: 'Ada.' }] });

    const started = await runCli(['run', script, '--json'], { env });
    const id = JSON.parse(started.stdout).sessionId;
    expect(await readdir(sessions)).toEqual([`${id}.jsonl`]);
    const continued = await runCli(['run', next, '-c', '--json'], { env });
    expect(JSON.parse(continued.stdout)).toMatchObject({ sessionId: id, text: 'Ada.' });

    const without = await runCli(['run', script, '--no-session', '--json'], { env });
    expect(JSON.parse(without.stdout).sessionId).toBeUndefined();
    expect(await readdir(sessions)).toEqual([`${id}.jsonl`]);
  }, 60_000);

  it('refuses --continue without a session directory, or with none to continue in it', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'hello.json', hello);
    expect(await runCli(['run', script, '--continue'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--continue needs --session DIR (or LOOPCHART_SESSION_DIR)') });
    const empty = await runCli(['run', script, '--continue', '--session', path.join(dir, 'none')]);
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining(`--continue: there is no session in ${path.join(dir, 'none')} to continue`) });
  });
});

describe('a session that stopped waiting for approval, resumed by the CLI', () => {
  it('is asked about once more and answered (--yes approves it once), and its run finishes', async () => {
    const sessions = await tempDir();
    const cwd = await tempDir();
    const waiting = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'call_write', name: 'write', input: { path: 'note.txt', content: 'hello' } }] }]),
      tools: builtinTools({ cwd, tools: ['write'] }),
      approval: { ask: ['write'] },
      store: fileStore(sessions),
      sessionId: 'waits',
    });
    const run = waiting.run('Write a note.');
    await nextEvent(waiting, 'approval-request');
    await waiting.dispose();
    await expect(run).rejects.toBeInstanceOf(AgentDisposedError);
    const dir = await tempDir();
    const finish = await writeScript(dir, 'finish.json', { prompt: 'unused', tools: ['write'], approval: { ask: ['write'] }, turns: [{ text: 'Written.' }] });

    const resumed = await runCli(['run', finish, '--session', sessions, '--resume', 'waits', '--cwd', cwd, '--yes']);

    expect(resumed.code).toBe(0);
    expect(resumed.stderr.match(/approved by --yes: write/g)).toHaveLength(1);
    expect(resumed.stdout).toBe('Written.\n');
    expect(await readFile(path.join(cwd, 'note.txt'), 'utf8')).toBe('hello');
  }, 60_000);
});
