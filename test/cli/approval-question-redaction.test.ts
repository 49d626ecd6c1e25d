/**
 * The terminal approval question is written by readline, past the CLI's
 * redacting stderr: what it shows of a tool call must already be redacted.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalAsker } from '../../src/cli/approval-prompt.js';
import { runCommand } from '../../src/cli/run-command.js';
import { tempDir, writeScript } from './support/scripts.js';

const KEY = 'sk-ASKKEY-5b8e1d09c7f2a4';

describe('the terminal approval question', () => {
  it('shows the tool call with the key redacted', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'ask.json', {
      prompt: 'Save the key.',
      tools: ['write'],
      approval: { ask: ['write'] },
      turns: [{ toolCalls: [{ name: 'write', input: { path: 'key.txt', content: `key=${KEY}` } }] }, { text: 'Done.' }],
    });
    const terminal = { input: new PassThrough(), output: new PassThrough() };
    let shown = '';
    terminal.output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    terminal.input.write('y\n');
    const stdout = new PassThrough().resume();
    const stderr = new PassThrough().resume();

    const code = await runCommand({
      script,
      cwd: await tempDir(),
      env: { ASK_TEST_API_KEY: KEY },
      askUser: terminalAsker({ ...terminal, onInterrupt: () => undefined }),
      json: true,
      events: false,
      stdout,
      stderr,
      color: false,
      interrupted: new Promise(() => {}),
    });

    expect(code).toBe(0);
    expect(shown).toContain('Allow write {"path":"key.txt","content":"key=[redacted]"}? [y/N]');
    expect(shown).not.toContain(KEY.slice(0, 8));
  });
});
