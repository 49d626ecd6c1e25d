/**
 * loopchart fork and loopchart script, as the built CLI: a session recorded against the local
 * OpenAI-compatible server becomes a script that replays it offline; a session is forked at a
 * checkpoint, with a different prompt, and the original stays byte for byte what it was.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgStore } from '../../src/postgres/pg-store.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';
import { streamResponse, useOpenAIServers, type OpenAIServer } from '../support/openai-sse-server.js';
import { RECORDED_ANSWER, recordSession } from '../support/recorded-session.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

const KEY = 'sk-test-time-travel-7c1e9a04';
beforeAll(() => buildCli(), 60_000);
const serve = useOpenAIServers();

const modelArgs = (server: OpenAIServer) => ['--model', 'openai-compatible:gpt-test', '--base-url', server.baseURL, '--api-key-env', 'LOOPCHART_TEST_KEY'];
const withKey = cleanEnv({ LOOPCHART_TEST_KEY: KEY });

/** The tool calls in a history, as the model made them. */
function toolCalls(messages: ModelMessage[]) {
  return messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, name: part.toolName, input: part.input }] : []))
      : [],
  );
}

describe('loopchart script', () => {
  it('turns a session recorded against an OpenAI-compatible server into a script that loopchart run replays offline: same outcome, tool calls and final text', async () => {
    const server = await serve([
      streamResponse({ text: 'Reading it first.', toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: 'README.md' } }] }),
      streamResponse({ text: 'It says hello.', usage: { prompt_tokens: 40, completion_tokens: 8 } }),
    ]);
    const sessions = await tempDir();
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'README.md'), '# Hello\n');
    const recorded = await runCli(['run', 'What does README.md say?', ...modelArgs(server), '--session', sessions, '--cwd', cwd, '--tools', 'read', '--yes', '--json'], {
      env: withKey,
    });
    expect(recorded.code).toBe(0);
    const original = JSON.parse(recorded.stdout) as { outcome: string; text: string; sessionId: string; messages: ModelMessage[] };

    const scriptFile = path.join(await tempDir(), 'case.yaml');
    const written = await runCli(['script', original.sessionId, '--session', sessions, '-o', scriptFile], { env: withKey });
    expect(written.stderr).toContain(`wrote ${scriptFile}`);
    expect(written.code).toBe(0);
    const yaml = await readFile(scriptFile, 'utf8');
    expect(yaml).not.toContain(KEY);

    // Offline: no server, no key, no model flag; the same workspace for the file tool.
    await server.close();
    const replayed = await runCli(['run', scriptFile, '--cwd', cwd, '--json'], { env: cleanEnv() });
    expect(replayed.stderr).not.toContain('expectations failed');
    expect(replayed.code).toBe(0);
    const replay = JSON.parse(replayed.stdout) as { outcome: string; text: string; messages: ModelMessage[] };
    expect(replay.outcome).toBe(original.outcome);
    expect(replay.text).toBe(original.text);
    expect(toolCalls(replay.messages)).toEqual(toolCalls(original.messages));
    expect(replay.messages).toEqual(original.messages);
  });

  it('replays the results of tools it cannot run from the session (a retry, a compaction and an approval included), as JSON when the file says .json', async () => {
    const sessions = await tempDir();
    const { sessionId, result } = await recordSession(fileStore(sessions));
    const scriptFile = path.join(await tempDir(), 'case.json');
    expect((await runCli(['script', sessionId, '--session', sessions, '-o', scriptFile])).code).toBe(0);
    const script = JSON.parse(await readFile(scriptFile, 'utf8')) as { toolResults: Record<string, { tool: string }>; turns: unknown[]; expect: unknown };
    expect(Object.values(script.toolResults).map((entry) => entry.tool)).toEqual(['measure', 'note']);
    expect(script.turns).toHaveLength(4);
    expect(script.expect).toEqual({ outcome: 'completed', textContains: RECORDED_ANSWER });

    const replayed = await runCli(['run', scriptFile, '--json']);
    expect(replayed.code).toBe(0);
    const replay = JSON.parse(replayed.stdout) as { outcome: string; text: string; messages: ModelMessage[] };
    expect(replay.text).toBe(result.text);
    expect(toolCalls(replay.messages)).toEqual(toolCalls(result.messages));
    const noteResult = replay.messages.flatMap((message) => (message.role === 'tool' ? message.content : [])).find((part) => part.type === 'tool-result' && part.toolCallId === 'call-note');
    expect(noteResult).toMatchObject({ output: { type: 'text', value: 'noted: 8000 characters' } });
  });

  it('refuses a session written before model calls were recorded, and a checkpoint it does not have', async () => {
    const sessions = await tempDir();
    await writeFile(path.join(sessions, 'old-format.jsonl'), await readFile('test/fixtures/session-format-1.jsonl'));
    const out = path.join(await tempDir(), 'case.yaml');
    const old = await runCli(['script', 'old-format', '--session', sessions, '-o', out]);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('has no model calls recorded (it was written before loopchart kept them: format version 1)');
    const { sessionId } = await recordSession(fileStore(sessions));
    const missing = await runCli(['script', sessionId, '--session', sessions, '--at', '99', '-o', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no checkpoint 99');
  });
});

describe('loopchart fork', () => {
  /** A session of one scripted run of two steps: checkpoints 1 (step 1), 2 (step 2), 3 (its end). */
  async function twoStepSession(): Promise<{ sessions: string; sessionId: string; file: string }> {
    const sessions = await tempDir();
    const dir = await tempDir();
    const script = await writeScript(dir, 'two-steps.json', {
      prompt: 'List the files.',
      tools: ['ls'],
      turns: [{ toolCalls: [{ id: 'call-ls', name: 'ls', input: { path: '.' } }] }, { text: 'There are none.' }],
    });
    const run = await runCli(['run', script, '--session', sessions, '--json']);
    expect(run.code).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    return { sessions, sessionId, file: path.join(sessions, `${sessionId}.jsonl`) };
  }

  it('forks at step 2 with a different prompt and runs on from there; the original session file is byte-identical afterwards', async () => {
    const { sessions, sessionId, file } = await twoStepSession();
    const before = await readFile(file);
    const view = (await openSessionRecord(fileStore(sessions), sessionId))!;
    const atStep2 = view.checkpoints.find((checkpoint) => checkpoint.step === 2 && checkpoint.state === 'running.llm.calling')!;
    const server = await serve([streamResponse({ text: 'Counting them instead: zero.' })]);

    const forked = await runCli(['fork', sessionId, '--at', String(atStep2.id), '--prompt', 'Count them instead.', '--session', sessions, ...modelArgs(server), '--json'], { env: withKey });
    expect(forked.code).toBe(0);
    const result = JSON.parse(forked.stdout) as { outcome: string; text: string; sessionId: string };
    expect(result).toMatchObject({ outcome: 'completed', text: 'Counting them instead: zero.' });
    expect(result.sessionId).not.toBe(sessionId);
    // The model saw the history as it was at step 2, and the new message after it.
    expect(server.requests[0]!.body!.messages.at(-1)).toEqual({ role: 'user', content: 'Count them instead.' });
    expect(server.requests[0]!.body!.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);

    expect((await readFile(file)).equals(before)).toBe(true);
    const fork = (await openSessionRecord(fileStore(sessions), result.sessionId))!;
    expect(fork.header.forkedFrom).toEqual({ sessionId, checkpoint: atStep2.id });
  });

  it('without --prompt prints the new id (or, with --json, the fork) and leaves the original alone; a checkpoint it does not have is a usage error', async () => {
    const { sessions, sessionId, file } = await twoStepSession();
    const before = await readFile(file);
    const plain = await runCli(['fork', sessionId, '--at', '3', '--session', sessions]);
    expect(plain.code).toBe(0);
    const forkId = plain.stdout.trim();
    expect(plain.stderr).toContain(`into ${forkId}`);
    expect((await fileStore(sessions).read(forkId))?.header.forkedFrom).toEqual({ sessionId, checkpoint: 3 });
    const json = await runCli(['fork', sessionId, '--at', '2', '--session', sessions, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ forkedFrom: { sessionId, checkpoint: 2 }, state: 'running.llm.calling' });
    expect((await readFile(file)).equals(before)).toBe(true);

    const missing = await runCli(['fork', sessionId, '--at', '9', '--session', sessions]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`session ${sessionId} has no checkpoint 9 (it has 3: 1 to 3)`);
    const noAt = await runCli(['fork', sessionId, '--session', sessions]);
    expect(noAt.code).toBe(2);
    expect(noAt.stderr).toContain('fork needs --at N');
  });
});

describe('loopchart fork and script on Postgres', () => {
  const postgresBin = postgresBinary();
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    if (postgresBin === undefined) return;
    server = await startPostgres(postgresBin);
    pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it.skipIf(postgresBin === undefined)('fork --pg and script --pg read and write the session in the database', async () => {
    const store = pgStore(pool!);
    const { sessionId, result } = await recordSession(store, 'pg-recorded');
    const before = JSON.stringify(await store.read(sessionId));

    const forked = await runCli(['fork', sessionId, '--at', '3', '--pg', server!.url, '--json']);
    expect(forked.code).toBe(0);
    const fork = JSON.parse(forked.stdout) as { sessionId: string; state: string };
    expect((await store.read(fork.sessionId))?.header.forkedFrom).toEqual({ sessionId, checkpoint: 3 });
    expect(JSON.stringify(await store.read(sessionId))).toBe(before);

    const scriptFile = path.join(await tempDir(), 'case.yaml');
    expect((await runCli(['script', sessionId, '--pg', server!.url, '-o', scriptFile])).code).toBe(0);
    const replayed = await runCli(['run', scriptFile, '--json']);
    expect(replayed.code).toBe(0);
    expect((JSON.parse(replayed.stdout) as { text: string }).text).toBe(result.text);
  });
});
