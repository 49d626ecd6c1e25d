/**
 * `--record`: a run against a local chat-completions server, recorded as a
 * script, then replayed offline with the server gone.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScript } from '../../src/cli/script.js';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

const KEY = 'sk-test-record-5e1d9a7c3b';

beforeAll(() => buildCli(), 60_000);
const serve = useOpenAIServers();

describe('loopchart run --record', () => {
  it('records a real model run as a script that replays it offline with the same outcome and messages', async () => {
    const server = await serve([
      streamResponse({ text: 'Reading the notes.', toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: 'notes.txt' } }] }),
      streamResponse({ text: ['The notes say: ', 'buy milk', '.'], usage: { prompt_tokens: 30, completion_tokens: 6 } }),
    ]);
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'notes.txt'), 'buy milk\n');
    const recording = path.join(cwd, 'recorded.yaml');
    const args = ['--model', 'openai:gpt-test', '--base-url', server.baseURL, '--api-key-env', 'RECORD_TEST_KEY', '--tools', 'read', '--cwd', cwd];

    const recorded = await runCli(['run', 'What do my notes say?', ...args, '--record', recording, '--json'], { env: cleanEnv({ RECORD_TEST_KEY: KEY }) });
    expect(recorded.stderr).toBe('');
    expect(recorded.code).toBe(0);
    const original = JSON.parse(recorded.stdout);
    expect(original).toMatchObject({ outcome: 'completed', text: 'The notes say: buy milk.', stepCount: 2 });

    const text = await readFile(recording, 'utf8');
    expect(text).toMatch(/^# Recorded by loopchart run --record on \d{4}-\d\d-\d\dT[\d:.]+Z, answered by openai:gpt-test\.\n/);
    expect(text).not.toContain(KEY);
    expect(() => parseScript(text, recording)).not.toThrow();
    const script = parse(text);
    expect(script).toMatchObject({
      prompt: 'What do my notes say?',
      tools: ['read'],
      approval: { ask: ['write', 'edit', 'bash'] },
      turns: [
        { toolCalls: [{ id: 'call_read', name: 'read', input: { path: 'notes.txt' } }], finishReason: 'tool-calls' },
        { finishReason: 'stop', usage: { inputTokens: 30, outputTokens: 6 } },
      ],
      expect: { outcome: 'completed' },
    });
    expect(script.turns.map((turn: { text: string[] }) => turn.text.join(''))).toEqual(['Reading the notes.', 'The notes say: buy milk.']);
    await server.close();

    const replayed = await runCli(['run', recording, '--cwd', cwd, '--json']);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    const replay = JSON.parse(replayed.stdout);
    expect(replay.outcome).toBe(original.outcome);
    expect(replay.messages).toEqual(original.messages);
    expect(replay.usage).toEqual(original.usage);
  });

  it('records a script run too, keeping its setup; a run that ends otherwise is expected to end so again', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'limited.json', {
      prompt: 'List the files.',
      instructions: 'Be brief.',
      maxSteps: 1,
      files: { 'a.txt': 'a' },
      turns: [{ toolCalls: [{ name: 'ls', input: {} }] }, { text: 'never reached' }],
    });
    const recording = path.join(dir, 'limited.recorded.yaml');
    const first = await runCli(['run', script, '--record', recording, '--json']);
    expect(first.code).toBe(3);
    expect(parse(await readFile(recording, 'utf8'))).toMatchObject({
      prompt: 'List the files.',
      instructions: 'Be brief.',
      maxSteps: 1,
      files: { 'a.txt': 'a' },
      expect: { outcome: 'max-steps' },
    });
    const replay = await runCli(['run', recording, '--json']);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ outcome: 'max-steps' });
  });
});
