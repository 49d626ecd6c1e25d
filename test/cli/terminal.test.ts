/**
 * What the CLI draws on a real terminal (a pseudo-terminal through util-linux's `script`): the
 * spinner naming what runs, colours that follow NO_COLOR, each step's text on its own line, and
 * the closing summary.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { runCliInPty, SCRIPT } from './support/pty.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const serve = useOpenAIServers();

/** A model that takes a while to answer, then a tool that takes a while: long enough for the spinner's 0.4 s. */
const slow: ScriptFile = {
  prompt: 'How warm is it in Oslo?',
  tools: ['bash'],
  turns: [
    { text: 'Checking the weather.', delayMs: 1500, toolCalls: [{ name: 'bash', input: { command: 'sleep 1.5' } }] },
    { text: 'It is 4 °C in Oslo.' },
  ],
};

const ESC = '\u001b';
const SGR_COLOUR = new RegExp(`${ESC}\\[(2|3\\d|22|39)m`);
const spinnerFrame = (label: string) => new RegExp(`\\r\\u001b\\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ${label} · \\d+\\.\\d s`);

describe.skipIf(SCRIPT === undefined).concurrent('loopchart run on a terminal', () => {
  it('spins while the model has not answered and while a tool runs, naming each; colours on; a summary with tokens and time', async () => {
    const script = await writeScript(await tempDir(), 'slow.json', slow);
    const { code, stdout: screen } = await runCliInPty(['run', script, '--cwd', await tempDir(), '--no-sandbox']);
    expect(code).toBe(0);
    expect(screen).toMatch(spinnerFrame('waiting for the model'));
    expect(screen).toMatch(spinnerFrame('bash'));
    expect(screen).toContain(`${ESC}[36m→ bash {"command":"sleep 1.5"}${ESC}[39m`);
    expect(screen).toMatch(new RegExp(`${ESC}\\[32mcompleted · 2 steps · 1 tool call · \\d+ tokens · \\d+\\.\\d s${ESC}\\[39m`));
  }, 60_000);

  it('with NO_COLOR writes no colour, and still spins', async () => {
    const script = await writeScript(await tempDir(), 'slow.json', slow);
    const { code, stdout: screen } = await runCliInPty(['run', script, '--cwd', await tempDir(), '--no-sandbox'], { env: cleanEnv({ NO_COLOR: '1' }) });
    expect(code).toBe(0);
    expect(screen).not.toMatch(SGR_COLOUR);
    expect(screen).toMatch(spinnerFrame('waiting for the model'));
    expect(screen).toMatch(/^completed · 2 steps · 1 tool call · \d+ tokens · \d+\.\d s\r$/m);
  }, 60_000);

  it("puts each step's text on a line of its own on the terminal's stdout", async () => {
    const script = await writeScript(await tempDir(), 'weather.json', { ...slow, turns: slow.turns!.map(({ delayMs: _delay, ...turn }) => turn) });
    const { code, stdout: screen } = await runCliInPty(['run', script, '--cwd', await tempDir(), '--no-sandbox'], { redirect: '2>/dev/null' });
    expect(code).toBe(0);
    expect(screen).toBe('Checking the weather.\r\nIt is 4 °C in Oslo.\r\n');
  }, 60_000);

  it('gives the cost in the summary when the model has a price', async () => {
    const server = await serve([streamResponse({ text: 'Hello.', usage: { prompt_tokens: 1200, completion_tokens: 300 } })]);
    const { code, stdout: screen } = await runCliInPty(
      ['run', 'Hi', '--model', 'openai:gpt-4o-mini', '--base-url', server.baseURL, '--api-key-env', 'PTY_KEY', '--tools', '', '--cwd', await tempDir()],
      { env: cleanEnv({ PTY_KEY: 'sk-pty-test' }) },
    );
    expect(code).toBe(0);
    expect(screen).toMatch(/completed · 1 step · 0 tool calls · 1,?500 tokens · \$0\.\d+ · \d+\.\d s/);
  }, 60_000);
});

describe('loopchart run into a pipe', () => {
  it('never draws the spinner there, even with FORCE_COLOR', async () => {
    const script = await writeScript(await tempDir(), 'slow.json', slow);
    const { code, stderr } = await runCli(['run', script, '--cwd', await tempDir(), '--no-sandbox'], { env: cleanEnv({ FORCE_COLOR: '1' }) });
    expect(code).toBe(0);
    expect(stderr).toContain(`${ESC}[32mcompleted`);
    expect(stderr).not.toContain('\r');
  }, 60_000);
});
