/**
 * End to end: the built CLI as a child process, talking to a local
 * chat-completions server on 127.0.0.1 through the real @ai-sdk/openai provider.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidHistory } from '../support/history.js';
import { errorResponse, openAIError, streamResponse, useOpenAIServers, type OpenAIServer } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli, startCli } from './support/cli-process.js';
import { asJsonArray, tempDir, writeScript } from './support/scripts.js';

const KEY = 'sk-test-e2e-4f9a1c0b7d3e';
beforeAll(() => buildCli(), 60_000);
const serve = useOpenAIServers();

const modelArgs = (server: OpenAIServer, provider = 'openai') => ['--model', `${provider}:gpt-test`, '--base-url', server.baseURL, '--api-key-env', 'LOOPCHART_TEST_KEY'];
const withKey = cleanEnv({ LOOPCHART_TEST_KEY: KEY });

const typoFixTurns = () => [
  streamResponse({ text: 'Reading it first.', toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: 'README.md' } }] }),
  streamResponse({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { path: 'README.md', oldText: 'teh best', newText: 'the best' } }] }),
  streamResponse({ text: 'Fixed: it now says "the best".', usage: { prompt_tokens: 40, completion_tokens: 8 } }),
];

describe('loopchart run against an OpenAI chat-completions endpoint', () => {
  it('runs a tool loop that edits a file in the workspace and prints the RunResult with --json', async () => {
    const server = await serve(typoFixTurns());
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'README.md'), '# Hello\nThis project is teh best.\n');

    const { code, stdout, stderr } = await runCli(
      ['run', 'Fix the typo in README.md.', ...modelArgs(server), '--cwd', cwd, '--tools', 'read,edit', '--yes', '--json'],
      { env: withKey },
    );

    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await readFile(path.join(cwd, 'README.md'), 'utf8')).toBe('# Hello\nThis project is the best.\n');
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      outcome: 'completed',
      text: 'Fixed: it now says "the best".',
      stepCount: 3,
      toolCallCount: 2,
      finishReason: 'stop',
      usage: { inputTokens: 60, outputTokens: 18, totalTokens: 78 },
    });
    expect(result.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    await expectValidHistory(result.messages);

    // What the model was sent: the key, the two tools, and each tool result on the next call.
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(Array(3).fill(`Bearer ${KEY}`));
    const [first, second, third] = server.requests.map((request) => request.body!);
    expect(first!.model).toBe('gpt-test');
    expect(first!.tools?.map((tool) => tool.function.name).sort()).toEqual(['edit', 'read']);
    expect(first!.messages).toEqual([{ role: 'user', content: 'Fix the typo in README.md.' }]);
    expect(second!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_read', content: expect.stringContaining('This project is teh best.') });
    expect(third!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_edit', content: expect.stringContaining('Replaced 1 occurrence') });
  });

  it('streams the assistant text to stdout and the tool activity and summary to stderr', async () => {
    const server = await serve(typoFixTurns());
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'README.md'), 'This project is teh best.\n');

    const { code, stdout, stderr } = await runCli(['run', 'Fix the typo in README.md.', ...modelArgs(server), '--cwd', cwd, '--yes'], { env: withKey });

    expect(code).toBe(0);
    expect(stdout).toBe('Reading it first.\nFixed: it now says "the best".\n');
    expect(stderr).toContain(`workspace: ${cwd}`);
    expect(stderr).toContain('→ read {"path":"README.md"}');
    expect(stderr).toContain('approved by --yes: edit {"path":"README.md","oldText":"teh best","newText":"the best"}');
    expect(stderr).toMatch(/✓ edit \(\d+ ms\) Replaced 1 occurrence in README.md/);
    expect(stderr).toMatch(/completed · 3 steps · 2 tool calls · 78 tokens/);
    expect(stderr).not.toContain('\u001b[');
  });

  it('stdout redirected to a file holds only the kept answer when a stream breaks off and the attempt is retried', async () => {
    const cutOff = streamResponse({ text: ['Partial ', 'answer'], finishReason: null, usage: null }, { end: 'end' });
    const server = await serve([cutOff, streamResponse({ text: 'Done.' })]);

    const { code, stdout, stderr } = await runCli(['run', 'Say done.', ...modelArgs(server), '--cwd', await tempDir(), '--tools', 'read'], { env: withKey });

    expect(code).toBe(0);
    expect(stdout).toBe('Done.\n');
    expect(stderr).toContain('after stream');
    expect(server.requests).toHaveLength(2);
  });

  it('with --model, a script runs against the endpoint instead of its scripted turns, and its expect block still applies', async () => {
    const server = await serve(typoFixTurns());
    const dir = await tempDir();
    const script = await writeScript(dir, 'typo.yaml', {
      prompt: 'Fix the typo in README.md.',
      instructions: 'You are careful.',
      tools: ['read', 'edit'],
      files: { 'README.md': 'This project is teh best.\n' },
      turns: [{ text: 'The scripted model would say this.' }],
      expect: { outcome: 'completed', textContains: 'Fixed', files: { 'README.md': 'This project is the best.\n' } },
    });
    // A real model asks before edit whatever the script says: --yes approves.
    const { code, stdout } = await runCli(['run', script, ...modelArgs(server), '--json', '--yes'], { env: withKey });

    expect(code).toBe(0);
    expect(JSON.parse(stdout).text).toBe('Fixed: it now says "the best".');
    expect(server.requests[0]!.body!.messages[0]).toEqual({ role: 'system', content: 'You are careful.' });
  });

  it('asks before an edit in a prompt run: without --yes or a terminal the edit is denied and the model is told why', async () => {
    const server = await serve(typoFixTurns());
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'README.md'), 'This project is teh best.\n');

    const { code, stdout, stderr } = await runCli(['run', 'Fix the typo in README.md.', ...modelArgs(server), '--cwd', cwd, '--json'], { env: withKey });

    expect(code).toBe(0);
    expect(await readFile(path.join(cwd, 'README.md'), 'utf8')).toBe('This project is teh best.\n');
    expect(stderr).toMatch(/denied: edit .*: it needs approval and there is no terminal to ask; run with --yes/);
    expect(server.requests[2]!.body!.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_edit',
      content: expect.stringContaining('The user denied this tool call: no one could approve it'),
    });
    expect(JSON.parse(stdout).outcome).toBe('completed');
  });

  it('prints NDJSON AgentEvents with --events, ending with run-end', async () => {
    const server = await serve([streamResponse({ text: ['Hel', 'lo.'] })]);
    const { code, stdout } = await runCli(['run', 'Say hello', ...modelArgs(server), '--cwd', await tempDir(), '--events'], { env: withKey });

    expect(code).toBe(0);
    const events = JSON.parse(asJsonArray(stdout));
    expect(events[0].type).toBe('run-start');
    const deltas = events.filter((event: { type: string }) => event.type === 'text-delta').map((event: { text: string }) => event.text);
    expect(deltas.filter(Boolean)).toEqual(['Hel', 'lo.']);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', result: { outcome: 'completed', text: 'Hello.' } });
  });

  it('ends failed (exit 1) with the HTTP status and error when the endpoint refuses the request', async () => {
    const server = await serve([errorResponse(400, { body: openAIError('model gpt-test does not exist', 'invalid_request_error') })]);
    const { code, stdout } = await runCli(['run', 'Hi', ...modelArgs(server), '--cwd', await tempDir(), '--json'], { env: withKey });

    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'failed', error: { status: 400, message: expect.stringContaining('does not exist') } });
  });

  it('ends failed (exit 1), not out of memory, when the endpoint streams an event that never ends, with the limit in the message', async () => {
    const endless = `"${'w'.repeat(33 * 1024 * 1024)}`;
    const server = await serve([{ kind: 'stream', chunks: [endless], end: 'hang' }]);
    const { code, stdout } = await runCli(['run', 'Hi', ...modelArgs(server), '--cwd', await tempDir(), '--json'], { env: withKey });

    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'failed', error: { message: expect.stringContaining('The server sent an event of more than 33554432 bytes') } });
    expect(server.requests).toHaveLength(1);
  });

  it('Ctrl+C while the provider is streaming: exit 130, outcome aborted, streamed text kept, valid history', async () => {
    const server = await serve([streamResponse({ text: ['Thinking ', 'hard'], finishReason: null, usage: null }, { end: 'hang' })]);
    const cli = startCli(['run', 'Think', ...modelArgs(server), '--cwd', await tempDir(), '--events'], { env: withKey });
    await server.waitForRequests(1);
    await new Promise<void>((resolve) => {
      const check = () => (cli.stdout.includes('"text":"hard"') ? resolve() : setTimeout(check, 20));
      check();
    });
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;

    expect(code).toBe(130);
    const runEnd = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(runEnd.result.outcome).toBe('aborted');
    expect(runEnd.result.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Thinking hard' }] });
    await expectValidHistory(runEnd.result.messages);
  });
});

describe('the API key', () => {
  it('never appears in stdout or stderr, in any output mode, even when the endpoint echoes it back', async () => {
    const echo = () => errorResponse(401, { body: openAIError(`Incorrect API key provided: ${KEY}`, 'invalid_request_error', 'invalid_api_key') });
    const server = await serve([echo(), echo(), echo()]);
    const cwd = await tempDir();
    for (const mode of [[], ['--json'], ['--events']]) {
      const { code, stdout, stderr } = await runCli(['run', 'Hi', ...modelArgs(server), '--cwd', cwd, ...mode], { env: withKey });
      expect(code, mode.join(' ')).toBe(1);
      expect(stdout + stderr, mode.join(' ')).not.toContain(KEY);
      expect(stdout + stderr, mode.join(' ')).toContain('Incorrect API key provided: [redacted]');
    }
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(Array(3).fill(`Bearer ${KEY}`));
  });

  it('is not inherited by the bash tool, so the model cannot read it from the environment, even unconfined', async () => {
    const server = await serve([
      streamResponse({ toolCalls: [{ id: 'call_env', name: 'bash', arguments: { command: 'echo "key=[$LOOPCHART_TEST_KEY]"' } }] }),
      streamResponse({ text: 'No key here.' }),
    ]);
    const { code, stdout } = await runCli(['run', 'Print the key', ...modelArgs(server), '--cwd', await tempDir(), '--tools', 'bash', '--yes', '--json', '--no-sandbox'], {
      env: withKey,
    });

    expect(code).toBe(0);
    expect(server.requests[1]!.body!.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('key=[]') });
    expect(stdout).not.toContain(KEY);
  });

  it('no provider key reaches bash in a script run on the scripted model, whatever variable holds it', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'env.json', {
      prompt: 'Show the environment.',
      tools: ['bash'],
      approval: { allow: ['bash'] },
      turns: [
        { toolCalls: [{ name: 'bash', input: { command: 'echo "[$OPENAI_API_KEY][$ANTHROPIC_API_KEY][$MY_SERVICE_API_KEY][$WORK_KEY]"' } }] },
        { text: 'Done.' },
      ],
    });
    const env = cleanEnv({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: `${KEY}-anthropic`, MY_SERVICE_API_KEY: `${KEY}-mine`, WORK_KEY: `${KEY}-work` });

    const { code, stdout } = await runCli(['run', script, '--json', '--api-key-env', 'WORK_KEY'], { env });

    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    const toolMessage = result.messages.find((message: { role: string }) => message.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('[][][][]');
  });

  it('refuses to send the key over plain http to another machine unless --allow-insecure-key', async () => {
    const { code, stderr } = await runCli(['run', 'Hi', '--model', 'openai:m', '--base-url', 'http://192.0.2.10/v1', '--cwd', await tempDir()], {
      env: cleanEnv({ OPENAI_API_KEY: KEY }),
    });
    expect(code).toBe(2);
    expect(stderr).toContain('plain http to another machine');
    expect(stderr).toContain('--allow-insecure-key');
    expect(stderr).not.toContain(KEY);
  });

  it('a script run against a real model asks before bash, write and edit whatever the script allows; with no terminal and no --yes they are denied', async () => {
    const server = await serve([
      streamResponse({ toolCalls: [{ id: 'call_write', name: 'write', arguments: { path: 'out.txt', content: 'written' } }] }),
      streamResponse({ text: 'Gave up.' }),
    ]);
    const dir = await tempDir();
    const cwd = await tempDir();
    const script = await writeScript(dir, 'permissive.json', { prompt: 'Write out.txt.', tools: ['write'], approval: { allow: ['write'] } });

    const { code, stdout } = await runCli(['run', script, ...modelArgs(server), '--cwd', cwd, '--json'], { env: withKey });

    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(JSON.stringify(result.messages)).toMatch(/denied/i);
    await expect(readFile(path.join(cwd, 'out.txt'), 'utf8')).rejects.toThrow();
  });

  it('leaves no trace of the key in any output of a --session --trace --report --record --events run, even when the model echoes it', async () => {
    const server = await serve([
      streamResponse({ text: `Your key is ${KEY}.`, toolCalls: [{ id: 'call_w', name: 'write', arguments: { path: 'key.txt', content: `k=${KEY}` } }] }),
      streamResponse({ text: `Done with ${KEY.slice(0, 14)}${KEY.slice(14)}.` }),
    ]);
    const dir = await tempDir();
    const cwd = await tempDir();
    const files = { trace: path.join(dir, 'run.trace.json'), report: path.join(dir, 'run.html'), record: path.join(dir, 'run.yaml') };
    const sessions = path.join(dir, 'sessions');

    const { code, stdout, stderr } = await runCli(
      ['run', `Remember ${KEY}`, ...modelArgs(server), '--cwd', cwd, '--tools', 'write', '--yes', '--events', '--session', sessions, '--trace', files.trace, '--report', files.report, '--record', files.record],
      { env: withKey },
    );

    expect(code).toBe(0);
    const outputs: Record<string, string> = { stdout, stderr };
    for (const [name, file] of Object.entries(files)) outputs[name] = await readFile(file, 'utf8');
    for (const name of await readdir(sessions)) outputs[`session ${name}`] = await readFile(path.join(sessions, name), 'utf8');
    expect(Object.keys(outputs).some((name) => name.startsWith('session '))).toBe(true);
    for (const [name, text] of Object.entries(outputs)) {
      expect(text, name).not.toContain(KEY);
      // No piece of it either (a preview cut inside the key).
      expect(text, name).not.toContain(KEY.slice(0, 12));
    }
  });

  it('is read from OPENAI_API_KEY by default', async () => {
    const server = await serve([streamResponse({ text: 'ok' })]);
    const { code } = await runCli(['run', 'Hi', '--model', 'openai:gpt-test', '--base-url', server.baseURL, '--cwd', await tempDir()], {
      env: cleanEnv({ OPENAI_API_KEY: KEY }),
    });
    expect(code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('is required for openai: a missing key is a usage error that names the variable, and nothing is sent', async () => {
    const server = await serve([streamResponse({ text: 'unused' })]);
    const byDefault = await runCli(['run', 'Hi', '--model', 'openai:gpt-test', '--base-url', server.baseURL]);
    expect(byDefault.code).toBe(2);
    expect(byDefault.stderr).toContain('the OpenAI API key is missing: set OPENAI_API_KEY');
    const named = await runCli(['run', 'Hi', ...modelArgs(server)]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('set LOOPCHART_TEST_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('is optional for openai-compatible: without one no Authorization header is sent', async () => {
    const server = await serve([streamResponse({ text: 'ok' }), streamResponse({ text: 'ok' })]);
    const withoutKey = await runCli(['run', 'Hi', ...modelArgs(server, 'openai-compatible'), '--cwd', await tempDir(), '--json']);
    expect(withoutKey.code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const keyed = await runCli(['run', 'Hi', ...modelArgs(server, 'openai-compatible'), '--cwd', await tempDir(), '--json'], { env: withKey });
    expect(keyed.code).toBe(0);
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('inlines @file mentions of a command-line prompt into what the model is sent', async () => {
    const server = await serve([streamResponse({ text: 'It says to buy milk.' })]);
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'notes.txt'), 'buy milk\n');

    const { code, stdout } = await runCli(['run', 'What does @notes.txt say?', ...modelArgs(server), '--cwd', cwd, '--json'], { env: withKey });

    expect(code).toBe(0);
    expect(JSON.stringify(server.requests[0]!.body!.messages)).toContain('buy milk');
    const result = JSON.parse(stdout);
    expect(result.messages[0].content).toContain('<file path="notes.txt">');
  });
});
