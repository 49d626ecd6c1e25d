import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

const write = (id: string, file: string) => ({ id, name: 'write', input: { path: file, content: 'x' } });

/** Three writes that each ask (the script's rule), answered without a terminal. */
const threeWrites: ScriptFile = {
  prompt: 'Write three files.',
  approval: { ask: ['write'] },
  turns: [{ toolCalls: [write('a', 'src/a.ts'), write('b', 'docs/b.md'), write('c', 'src/secret.ts')] }, { text: 'Done.' }],
};

async function run(name: string, script: ScriptFile, extra: string[]) {
  const cwd = await tempDir();
  const file = await writeScript(dir, name, script);
  const result = await runCli(['run', file, '--cwd', cwd, '--json', ...extra]);
  const written = ['src/a.ts', 'docs/b.md', 'src/secret.ts'].filter((file) => existsSync(path.join(cwd, file)));
  return { ...result, cwd, written };
}

describe.concurrent('loopchart run --allow, --deny and --permission-mode', () => {
  it('--allow runs the calls it matches without asking, --deny denies what it matches, the rest still asks', async () => {
    const { code, stderr, written } = await run('allow.json', threeWrites, ['--allow', 'write(src/**)', '--deny', 'write(src/secret*)']);
    expect(code).toBe(0);
    expect(written).toEqual(['src/a.ts']);
    // docs/b.md asked, and without a terminal it was denied.
    expect(stderr).toContain('denied: write {"path":"docs/b.md","content":"x"}: it needs approval and there is no terminal to ask');
    expect(stderr).not.toContain('src/secret.ts"');
  }, 60_000);

  it('--permission-mode allow-edits writes without asking; deny denies every call that asks, and says why', async () => {
    const edits = await run('edits.json', threeWrites, ['--permission-mode', 'allow-edits']);
    expect(edits.code).toBe(0);
    expect(edits.written).toEqual(['src/a.ts', 'docs/b.md', 'src/secret.ts']);

    const denied = await run('deny.json', threeWrites, ['--permission-mode', 'deny', '--allow', 'write(docs/*)']);
    expect(denied.written).toEqual(['docs/b.md']);
    expect(denied.stderr).toContain('denied: write {"path":"src/a.ts","content":"x"}: it needs approval and --permission-mode deny denies such calls');
  }, 60_000);

  it('an --allow rule on bash matches a simple command, not one with a redirection or a command chained onto it', async () => {
    const script: ScriptFile = {
      prompt: 'Echo.',
      tools: ['bash'],
      approval: { ask: ['bash'] },
      turns: [{ toolCalls: [{ id: 'redirect', name: 'bash', input: { command: 'echo hi > /dev/null' } }, { id: 'plain', name: 'bash', input: { command: 'echo hello' } }, { id: 'chained', name: 'bash', input: { command: 'echo hi; touch pwned' } }] }, { text: 'Done.' }],
    };
    const { code, stdout, cwd } = await run('bash.json', script, ['--allow', 'bash(echo *)']);
    expect(code).toBe(0);
    const outputs = JSON.parse(stdout).messages.find((message: { role: string }) => message.role === 'tool').content.map((part: { toolCallId: string; output: { type: string } }) => [part.toolCallId, part.output.type]);
    expect(outputs).toEqual([['redirect', 'error-text'], ['plain', 'text'], ['chained', 'error-text']]);
    expect(existsSync(path.join(cwd, 'pwned'))).toBe(false);
  }, 60_000);

  it("a script's approval rules take the same patterns, and a bad one is an invalid script", async () => {
    const ruled = await run('ruled.json', { ...threeWrites, approval: { deny: ['write(docs/**)'] } }, []);
    expect(ruled.written).toEqual(['src/a.ts', 'src/secret.ts']);
    const bad = await run('bad.json', { ...threeWrites, approval: { ask: ['mcp__x__*(y)'] } }, []);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('approval.ask.0');
    expect(bad.stderr).toContain('a pattern in parentheses works with one of bash, read, write, edit, ls, glob, grep');
  }, 60_000);

  it('refuses a rule that names no tool of the run, a bad rule and a bad mode', async () => {
    expect(await run('typo.json', threeWrites, ['--allow', 'wirte'])).toMatchObject({ code: 2, stderr: expect.stringContaining("--allow wirte matches none of this run's tools (read, write, edit, ls, glob, grep)") });
    expect(await run('paren.json', threeWrites, ['--deny', 'bash(rm *'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--deny: "bash(rm *" must end with ")"') });
    expect(await run('mode.json', threeWrites, ['--permission-mode', 'yolo'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--permission-mode takes one of ask, allow-edits, deny, got "yolo"') });
  }, 60_000);
});
