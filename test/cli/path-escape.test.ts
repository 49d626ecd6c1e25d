import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidHistory } from '../support/history.js';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const SECRET = 'top secret\n';

/**
 * root/ws is the workspace; root/outside holds secret.txt. Inside the
 * workspace, `link` is a symlink to the outside directory and
 * `secret-link.txt` a symlink to the outside file.
 */
async function sandbox() {
  const root = await tempDir();
  const ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), SECRET);
  await writeFile(path.join(ws, 'inside.txt'), 'inside\n');
  await symlink(outside, path.join(ws, 'link'));
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret-link.txt'));
  return { root, ws, outside };
}

/** Every file below `dir` (not following links) with its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = entry.isFile() ? await readFile(full, 'utf8') : entry.isSymbolicLink() ? '(link)' : '(dir)';
  }
  return files;
}

type Attack = { name: string; input: Record<string, unknown> };

/** The escape attempts for one tool: `../`, an absolute path outside, a directory link and a file link. */
const attacksOn: Record<string, (outside: string) => Attack[]> = {
  read: (outside) =>
    ['../outside/secret.txt', path.join(outside, 'secret.txt'), 'link/secret.txt', 'secret-link.txt'].map((p) => ({ name: 'read', input: { path: p } })),
  write: (outside) =>
    ['../outside/new.txt', path.join(outside, 'new.txt'), 'link/new.txt', 'secret-link.txt', 'link/sub/deep.txt'].map((p) => ({
      name: 'write',
      input: { path: p, content: 'pwned' },
    })),
  edit: (outside) =>
    ['../outside/secret.txt', path.join(outside, 'secret.txt'), 'link/secret.txt', 'secret-link.txt'].map((p) => ({
      name: 'edit',
      input: { path: p, oldText: 'top secret', newText: 'pwned' },
    })),
  ls: (outside) => ['../outside', outside, 'link', '..'].map((p) => ({ name: 'ls', input: { path: p } })),
  glob: (outside) => [
    ...['../outside', outside, 'link'].map((p) => ({ name: 'glob', input: { pattern: '*', path: p } })),
    { name: 'glob', input: { pattern: '../outside/*' } },
    { name: 'glob', input: { pattern: `${outside}/*` } },
  ],
  grep: (outside) =>
    ['../outside', outside, 'link', 'secret-link.txt', '../outside/secret.txt'].map((p) => ({ name: 'grep', input: { pattern: 'secret', path: p } })),
};

describe('path escapes through loopchart run', () => {
  it.each(Object.keys(attacksOn))(
    '%s: every escape attempt is an error result the model sees, and nothing outside the workspace changes',
    async (tool) => {
      const { root, ws, outside } = await sandbox();
      const attacks = attacksOn[tool]!(outside);
      const script = await writeScript(root, `${tool}.json`, {
        prompt: 'Try to escape.',
        tools: [tool],
        turns: [
          { toolCalls: attacks.map((attack, index) => ({ id: `attack-${index}`, ...attack })) },
          { text: 'I could not get out.' },
        ],
      });
      const before = { outside: await snapshot(outside), root: await readdir(root) };

      const { code, stdout, stderr } = await runCli(['run', script, '--cwd', ws, '--json']);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result.outcome).toBe('completed');
      await expectValidHistory(result.messages);

      const toolMessage = result.messages.find((message: { role: string }) => message.role === 'tool');
      expect(toolMessage.content).toHaveLength(attacks.length);
      for (const [index, part] of toolMessage.content.entries()) {
        const attempt = `${tool} ${JSON.stringify(attacks[index]!.input)}`;
        expect(part.toolCallId, attempt).toBe(`attack-${index}`);
        expect(part.output.type, attempt).toBe('error-text');
        expect(part.output.value, attempt).toMatch(/outside the workspace|must be relative to the workspace|must not contain '\.\.'/);
        expect(part.output.value, attempt).not.toContain('top secret');
      }

      expect(await snapshot(outside)).toEqual(before.outside);
      expect(await readdir(root)).toEqual(before.root);
      expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('inside\n');
    },
  );

  it('glob and grep over the whole workspace skip what links point to outside, without revealing it', async () => {
    const { root, ws } = await sandbox();
    const script = await writeScript(root, 'walk.json', {
      prompt: 'Search everything.',
      tools: ['glob', 'grep'],
      turns: [
        {
          toolCalls: [
            { id: 'glob-all', name: 'glob', input: { pattern: '**/*' } },
            { id: 'glob-link', name: 'glob', input: { pattern: 'link/*' } },
            { id: 'grep-all', name: 'grep', input: { pattern: 'secret' } },
            { id: 'grep-link-glob', name: 'grep', input: { pattern: 'secret', glob: 'link/*' } },
          ],
        },
        { text: 'Nothing found.' },
      ],
    });
    const { code, stdout } = await runCli(['run', script, '--cwd', ws, '--json']);
    expect(code).toBe(0);
    const toolMessage = JSON.parse(stdout).messages.find((message: { role: string }) => message.role === 'tool');
    for (const part of toolMessage.content) {
      expect(part.output.value, part.toolCallId).not.toContain('top secret');
      expect(part.output.value, part.toolCallId).not.toMatch(/link\/secret\.txt/);
    }
  });

  it('expect.files is confined to the workspace like the tools: a script cannot read outside through its expectations', async () => {
    const { root, ws } = await sandbox();
    const script = await writeScript(root, 'peek.json', {
      prompt: 'Nothing.',
      turns: [{ text: 'Done.' }],
      expect: { files: { '../outside/secret.txt': SECRET, 'secret-link.txt': SECRET } },
    });
    const { code, stderr } = await runCli(['run', script, '--cwd', ws, '--json']);
    expect(code).toBe(9);
    expect(stderr).toContain('files.../outside/secret.txt');
    expect(stderr).toMatch(/outside the workspace/);
    expect(stderr).not.toContain('top secret');
  });
});

