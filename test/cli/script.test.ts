import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScript, MAX_SCRIPT_BYTES, parseScript, ScriptError } from '../../src/cli/script.js';
import { UsageError } from '../../src/cli/usage-error.js';

function scriptError(text: string): ScriptError {
  try {
    parseScript(text, 'bad.yaml');
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw error;
  }
  throw new Error('the script was accepted');
}

describe('script files', () => {
  it('accepts a minimal YAML script and the same script as JSON', () => {
    const yaml = parseScript('prompt: hi\nturns:\n  - text: hello\n');
    const json = parseScript('{"prompt": "hi", "turns": [{"text": "hello"}]}');
    expect(yaml).toEqual(json);
  });

  it('names the bad field and its line', () => {
    const error = scriptError('prompt: hi\nmaxSteps: 2\nturns:\n  - text: ok\n  - toolCalls:\n      - input: {}\n');
    expect(error.issues).toEqual([{ path: 'turns.1.toolCalls.0.name', line: 6, message: expect.any(String) }]);
    expect(error.message).toContain('turns.1.toolCalls.0.name (line 6)');
  });

  it('rejects unknown fields instead of ignoring a typo', () => {
    const error = scriptError('prompt: hi\nturns:\n  - text: ok\nmaxstep: 3\n');
    expect(error.issues[0]).toMatchObject({ path: '(script)', message: expect.stringMatching(/maxstep/) });
  });

  it('reports YAML syntax errors with their line', () => {
    const error = scriptError('prompt: hi\nturns: [\n');
    expect(error.issues[0]).toMatchObject({ path: '(syntax)', line: expect.any(Number) });
  });

  it('rejects unknown tool names', () => {
    expect(scriptError('prompt: hi\ntools: [read, teleport]\nturns:\n  - text: ok\n').issues[0]!.path).toBe('tools.1');
  });

  it('a billion-laughs document is an invalid script naming the file, not an out-of-memory crash', () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      laughs.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const error = scriptError(`${laughs.join('\n')}\nprompt: hi\nturns: [{ text: hi }]\n`);
    expect(error.message).toContain('bad.yaml');
    expect(error.message).toMatch(/alias/i);
  });

  it('rejects absurd delays (more than 10 minutes) with the field that has one', () => {
    const error = scriptError('prompt: hi\nturns:\n  - text: hi\n    delayMs: 1e12\n');
    expect(error.message).toContain('turns.0.delayMs');
    expect(error.message).toContain('at most 600000 ms');
  });
});

describe('loading a script file', () => {
  const withDir = async (use: (dir: string) => Promise<void>) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-script-'));
    try {
      await use(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('reads and checks a script file', async () => {
    await withDir(async (dir) => {
      await writeFile(path.join(dir, 'ok.yaml'), 'prompt: hi\nturns:\n  - text: hello\n');
      await expect(loadScript(path.join(dir, 'ok.yaml'))).resolves.toMatchObject({ prompt: 'hi' });
    });
  });

  it('a file over 4 MiB is a usage error that says so, not an out-of-memory crash', async () => {
    expect(MAX_SCRIPT_BYTES).toBe(4 * 1024 * 1024);
    await withDir(async (dir) => {
      const file = path.join(dir, 'huge.yaml');
      // 200 MB without writing them: a sparse file.
      const handle = await open(file, 'w');
      await handle.truncate(200 * 1024 * 1024);
      await handle.close();
      const loading = loadScript(file);
      await expect(loading).rejects.toBeInstanceOf(UsageError);
      await expect(loading).rejects.toThrow(`script ${file} is 200.0 MiB: a script may be at most 4 MiB`);
    });
  });

  it('a FIFO is a usage error, not a wait for a writer', async () => {
    await withDir(async (dir) => {
      const file = path.join(dir, 'pipe.yaml');
      execFileSync('mkfifo', [file]);
      await expect(loadScript(file)).rejects.toThrow(`script ${file} is not a regular file`);
    });
  });
});
