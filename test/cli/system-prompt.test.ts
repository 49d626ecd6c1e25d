import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeInstructions } from '../../src/cli/system-prompt.js';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const serve = useOpenAIServers();

describe('composeInstructions', () => {
  it('puts the base first, then each project file under its name, then the appended text', () => {
    expect(
      composeInstructions({
        script: 'From the script.',
        replacement: 'From --system.',
        project: [
          { name: 'AGENTS.md', content: 'Run npm test.\n' },
          { name: 'CLAUDE.md', content: 'Be terse.' },
        ],
        append: 'Answer in French.',
      }),
    ).toBe(
      'From --system.\n\nInstructions from AGENTS.md in the workspace:\n\nRun npm test.\n\nInstructions from CLAUDE.md in the workspace:\n\nBe terse.\n\nAnswer in French.',
    );
  });

  it("keeps the script's instructions without a replacement, and sends nothing when there is nothing", () => {
    expect(composeInstructions({ script: 'Be brief.', append: 'Cite files.' })).toBe('Be brief.\n\nCite files.');
    expect(composeInstructions({})).toBeUndefined();
  });
});

describe('loopchart run --system, --system-file, --append-system, --agents-md', () => {
  it('sends the system prompt from a file, the workspace AGENTS.md and CLAUDE.md, and the appended text to the model', async () => {
    const server = await serve([streamResponse({ text: 'Done.' })]);
    const cwd = await tempDir();
    await writeFile(path.join(cwd, 'AGENTS.md'), 'Run npm test before you finish.\n');
    await writeFile(path.join(cwd, 'CLAUDE.md'), 'Never touch dist/.\n');
    const systemFile = path.join(await tempDir(), 'reviewer.md');
    await writeFile(systemFile, 'You review code.');

    const { code, stderr } = await runCli(
      ['run', 'Look around.', '--model', 'openai:gpt-test', '--base-url', server.baseURL, '--api-key-env', 'TEST_KEY', '--cwd', cwd, '--tools', 'read', '--json',
        '--system-file', systemFile, '--agents-md', '--append-system', 'Answer in one line.'],
      { env: cleanEnv({ TEST_KEY: 'sk-test-system' }) },
    );

    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(server.requests[0]!.body!.messages[0]).toEqual({
      role: 'system',
      content:
        'You review code.\n\nInstructions from AGENTS.md in the workspace:\n\nRun npm test before you finish.\n\nInstructions from CLAUDE.md in the workspace:\n\nNever touch dist/.\n\nAnswer in one line.',
    });
  });

  it("--system replaces a script's instructions, and --record keeps the prompt that was sent", async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'hi.json', { prompt: 'Hi', instructions: 'From the script.', turns: [{ text: 'Hello.' }] });
    const recording = path.join(dir, 'recorded.yaml');

    const { code } = await runCli(['run', script, '--system', 'From the command line.', '--append-system', 'And more.', '--record', recording, '--json']);

    expect(code).toBe(0);
    expect(parse(await readFile(recording, 'utf8')).instructions).toBe('From the command line.\n\nAnd more.');
  });

  it('refuses --agents-md in a workspace that has neither file, --system with --system-file, and an empty or FIFO system file', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'hi.json', { prompt: 'Hi', turns: [{ text: 'Hello.' }] });
    const empty = path.join(dir, 'empty.md');
    await writeFile(empty, '  \n');
    const fifo = path.join(dir, 'pipe.md');
    execFileSync('mkfifo', [fifo]);

    const noFiles = await runCli(['run', script, '--agents-md']);
    expect(noFiles.code).toBe(2);
    expect(noFiles.stderr).toMatch(/--agents-md: the workspace \S+ has neither AGENTS\.md nor CLAUDE\.md/);
    const both = await runCli(['run', script, '--system', 'a', '--system-file', empty]);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('--system and --system-file both give the system prompt') });
    expect(await runCli(['run', script, '--system-file', empty])).toMatchObject({ code: 2, stderr: expect.stringContaining(`--system-file ${empty} is empty`) });
    expect(await runCli(['run', script, '--system-file', fifo])).toMatchObject({ code: 2, stderr: expect.stringContaining(`--system-file ${fifo} is not a regular file`) });
    expect(await runCli(['run', script, '--system-file', path.join(dir, 'nope.md')])).toMatchObject({ code: 2, stderr: expect.stringContaining('there is no such file') });
  });
});
