import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

const listRoot = { name: 'ls', input: {} };

const byOutcome: Array<[outcome: string, code: number, script: ScriptFile]> = [
  ['completed', 0, { prompt: 'hi', turns: [{ text: 'Hello.' }] }],
  ['failed', 1, { prompt: 'hi', turns: [{ error: { status: 400, message: 'bad request' } }] }],
  ['max-steps', 3, { prompt: 'hi', maxSteps: 1, turns: [{ toolCalls: [listRoot] }, { text: 'never reached' }] }],
  ['doom-loop', 4, { prompt: 'hi', turns: [{ toolCalls: [listRoot] }, { toolCalls: [listRoot] }, { toolCalls: [listRoot] }, { text: 'never' }] }],
  ['context-limit', 5, { prompt: 'hi', turns: [{ text: 'This answer is cut', finishReason: 'length' }] }],
  ['content-filter', 6, { prompt: 'hi', turns: [{ text: '', finishReason: 'content-filter' }] }],
  ['denied', 8, { prompt: 'hi', approval: { ask: ['ls'] }, onDeny: 'stop', turns: [{ toolCalls: [listRoot] }, { text: 'never' }] }],
];

describe.concurrent('loopchart run exit codes', () => {
  it.each(byOutcome)('outcome %s exits with %i, and --json reports that outcome', async (outcome, code, script) => {
    const file = await writeScript(dir, `${outcome}.json`, script);
    const result = await runCli(['run', file, '--json']);
    expect(result.code).toBe(code);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome });
  });

  it('exits 9 when the expect block fails, naming the failed check on stderr', async () => {
    const file = await writeScript(dir, 'expect-fails.json', {
      prompt: 'hi',
      turns: [{ text: 'Hello.' }],
      expect: { outcome: 'completed', textContains: 'Goodbye' },
    });
    const result = await runCli(['run', file]);
    expect(result.code).toBe(9);
    expect(result.stderr).toContain('expectations failed');
    expect(result.stderr).toContain('text: expected it to contain "Goodbye"');
  });

  it('exits 0 when the run ends with the outcome the expect block names, even a non-completed one', async () => {
    const file = await writeScript(dir, 'expect-max-steps.json', {
      prompt: 'hi',
      maxSteps: 1,
      turns: [{ toolCalls: [listRoot] }],
      expect: { outcome: 'max-steps' },
    });
    expect((await runCli(['run', file])).code).toBe(0);
  });

  it('exits 9 when the expect block names another outcome than the run had', async () => {
    const file = await writeScript(dir, 'expect-other-outcome.json', { prompt: 'hi', turns: [{ text: 'Hi.' }], expect: { outcome: 'max-steps' } });
    const result = await runCli(['run', file]);
    expect(result.code).toBe(9);
    expect(result.stderr).toContain('outcome: expected max-steps, got completed');
  });

  it('--max-steps overrides the script: a script that would complete ends max-steps (3)', async () => {
    const file = await writeScript(dir, 'override.json', { prompt: 'hi', turns: [{ toolCalls: [listRoot] }, { text: 'Done.' }] });
    expect((await runCli(['run', file])).code).toBe(0);
    expect((await runCli(['run', file, '--max-steps', '1'])).code).toBe(3);
  });

  it('exits 2 for an invalid script, and the error names the bad field and its line', async () => {
    const file = await writeScript(dir, 'bad.yaml', 'prompt: hi\nturns:\n  - text: ok\n  - toolCalls:\n      - input: { path: a }\n');
    const result = await runCli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('turns.1.toolCalls.0.name (line 5)');
  });

  it('exits 2 for a script with a misspelt field, naming it', async () => {
    const file = await writeScript(dir, 'typo.yaml', 'prompt: hi\nmaxStep: 3\nturns:\n  - text: ok\n');
    const result = await runCli(['run', file, '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/maxStep/);
  });

  it('exits 2 for a script without turns run on the scripted model, saying --model would run it', async () => {
    const file = await writeScript(dir, 'no-turns.yaml', 'prompt: hi\n');
    const result = await runCli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no turns');
    expect(result.stderr).toContain('--model');
  });

  it.each([
    [['run', 'x.yaml', '--max-steps', '0'], '--max-steps takes a positive whole number'],
    [['run', 'x.yaml', '--frobnicate'], 'run has no option --frobnicate'],
    [['run', 'x', '--model', 'openai-compatible:llama'], 'needs --base-url'],
    [['run', 'Fix the bug'], 'a prompt needs a real model'],
    [['run', 'examples/demo.yaml', '--cwd', '/does/not/exist'], 'is not an existing directory'],
    [['launch'], 'unknown command "launch"'],
    [[], 'no command given'],
  ])('exits 2 with a usage error for %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(/Run loopchart (run )?--help for usage/);
  });
});
