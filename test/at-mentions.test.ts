import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { atMentions } from '../src/context/at-mentions.js';
import { createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { readTool } from '../src/tools/read.js';
import { runTool, useTempWorkspace } from './tools/helpers.js';

const ws = useTempWorkspace();

/** The content of the one user message `text` becomes. */
async function inlined(text: string, options: { maxDirectoryEntries?: number } = {}): Promise<string> {
  const [message] = await atMentions({ cwd: ws.root, ...options })([{ role: 'user', content: text }]);
  if (typeof message?.content !== 'string') throw new Error('expected string content');
  return message.content;
}

describe('atMentions', () => {
  it('appends a mentioned file after the text, with numbered lines, and keeps the text as written', async () => {
    await ws.file('src/a.ts', 'export const a = 1;\nexport const b = 2;\n');
    expect(await inlined('Explain @src/a.ts please')).toBe(
      'Explain @src/a.ts please\n\n<file path="src/a.ts">\n     1\texport const a = 1;\n     2\texport const b = 2;\n</file>',
    );
  });

  it('truncates a large file exactly as the read tool does, notice included', async () => {
    const lines = Array.from({ length: 3000 }, (_, index) => `line ${index + 1}`);
    await ws.file('big.txt', `${lines.join('\n')}\n`);
    const expected = await runTool(readTool({ cwd: ws.root }), { path: 'big.txt' });
    expect(expected).toContain('[truncated: showing lines 1-2000 of 3000. Continue with offset=2001]');
    expect(await inlined('@big.txt')).toBe(`@big.txt\n\n<file path="big.txt">\n${expected}\n</file>`);
  });

  it('says a file is not valid UTF-8 exactly as the read tool does, instead of showing U+FFFD without a word', async () => {
    await ws.file('latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
    const expected = await runTool(readTool({ cwd: ws.root }), { path: 'latin1.txt' });
    expect(expected).toContain('[not valid UTF-8: the bytes that are not are shown as \uFFFD;');
    expect(await inlined('@latin1.txt')).toBe(`@latin1.txt\n\n<file path="latin1.txt">\n${expected}\n</file>`);

    await ws.file('big-latin1.txt', Buffer.from(`caf\xe9\n${'line\n'.repeat(2500)}`, 'latin1'));
    const expectedBig = await runTool(readTool({ cwd: ws.root }), { path: 'big-latin1.txt' });
    expect(expectedBig).toMatch(/\[truncated: .*\]\n\[not valid UTF-8: .*\]$/);
    expect(await inlined('@big-latin1.txt')).toBe(`@big-latin1.txt\n\n<file path="big-latin1.txt">\n${expectedBig}\n</file>`);
  });

  it('lists a mentioned directory, directories marked with /, bounded by maxDirectoryEntries', async () => {
    await ws.file('docs/a.md', 'a');
    await ws.file('docs/b.md', 'b');
    await ws.file('docs/guides/c.md', 'c');
    expect(await inlined('What is in @docs/?', { maxDirectoryEntries: 2 })).toBe(
      'What is in @docs/?\n\n<directory path="docs">\na.md\nb.md\n[… 1 more]\n</directory>',
    );
    expect(await inlined('What is in @docs?')).toBe('What is in @docs?\n\n<directory path="docs">\na.md\nb.md\nguides/\n</directory>');
  });

  it('leaves a missing path as written and appends a note saying it does not exist', async () => {
    expect(await inlined('Fix @src/missing.ts.')).toBe('Fix @src/missing.ts.\n\n[@src/missing.ts not inlined: no such file or directory]');
  });

  it('refuses a relative path that escapes the workspace (@../x)', async () => {
    const text = await inlined('Read @../outside/secret.txt');
    expect(text).toBe('Read @../outside/secret.txt\n\n[@../outside/secret.txt not inlined: outside the workspace]');
  });

  it('refuses an absolute path outside the workspace', async () => {
    const secret = path.join(ws.outside, 'secret.txt');
    expect(await inlined(`Read @${secret}`)).toBe(`Read @${secret}\n\n[@${secret} not inlined: outside the workspace]`);
  });

  it('refuses a symbolic link inside the workspace that leads outside it', async () => {
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'innocent.txt'));
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    const text = await inlined('Read @innocent.txt and @escape/secret.txt');
    expect(text).not.toContain('top secret');
    expect(text).toBe(
      'Read @innocent.txt and @escape/secret.txt\n\n' +
        '[@innocent.txt not inlined: a symbolic link on the way leads outside the workspace]\n\n' +
        '[@escape/secret.txt not inlined: a symbolic link on the way leads outside the workspace]',
    );
  });

  it('accepts an absolute path inside the workspace and shows it relative to the workspace', async () => {
    await ws.file('notes.txt', 'hi\n');
    expect(await inlined(`See @${path.join(ws.root, 'notes.txt')}`)).toContain('<file path="notes.txt">\n     1\thi\n</file>');
  });

  it('leaves emails, a lone @, @@ and @ inside inline or fenced code alone', async () => {
    await ws.file('a.ts', 'a\n');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Mail me@a.ts or a@b.com, meet @ noon, @@a.ts, run `npm i @a.ts`.\n```\n@a.ts\n```' },
    ];
    expect(await atMentions({ cwd: ws.root })(messages)).toEqual(messages);
  });

  it('inlines several mentions in order, each file once, and notes the ones it could not inline', async () => {
    await ws.file('a.ts', 'const a = 1;\n');
    await ws.file('lib/b.ts', 'const b = 2;\n');
    await ws.file('logo.png', Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const text = await inlined('Compare @lib/b.ts with (@a.ts), see @nope.md, @logo.png and again @./a.ts!');
    expect(text).toBe(
      'Compare @lib/b.ts with (@a.ts), see @nope.md, @logo.png and again @./a.ts!\n\n' +
        '<file path="lib/b.ts">\n     1\tconst b = 2;\n</file>\n\n' +
        '<file path="a.ts">\n     1\tconst a = 1;\n</file>\n\n' +
        '[@nope.md not inlined: no such file or directory]\n\n' +
        '[@logo.png not inlined: binary file]',
    );
  });

  it('reads a path with spaces written in quotes', async () => {
    await ws.file('my notes.md', 'remember\n');
    expect(await inlined('Summarise @"my notes.md"')).toContain('<file path="my notes.md">\n     1\tremember\n</file>');
  });

  it('reads only user messages, and appends to a multi-part message as a new text part', async () => {
    await ws.file('a.ts', 'const a = 1;\n');
    const assistant: ModelMessage = { role: 'assistant', content: 'I saw @a.ts' };
    const [user, untouched] = await atMentions({ cwd: ws.root })([
      { role: 'user', content: [{ type: 'text', text: 'Look at @a.ts' }, { type: 'image', image: new Uint8Array([1]) }] },
      assistant,
    ]);
    expect(untouched).toBe(assistant);
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look at @a.ts' },
        { type: 'image', image: new Uint8Array([1]) },
        { type: 'text', text: '<file path="a.ts">\n     1\tconst a = 1;\n</file>' },
      ],
    });
  });

  it('stops when the signal is aborted', async () => {
    await mkdir(path.join(ws.root, 'src'));
    const controller = new AbortController();
    controller.abort(new Error('user pressed ctrl-c'));
    await expect(atMentions({ cwd: ws.root })([{ role: 'user', content: '@src' }], { signal: controller.signal })).rejects.toThrow(
      'user pressed ctrl-c',
    );
  });
});

describe('atMentions as a createAgent prompt transform', () => {
  it('inlines a mentioned file into the prompt that enters the history, once per run', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'loopchart-mention-'));
    try {
      await writeFile(path.join(cwd, 'notes.txt'), 'remember the milk\n');
      const model = mockModel([{ text: ['ok'] }]);
      const agent = createAgent({ model, transformPrompt: atMentions({ cwd }) });
      const result = await agent.run('Summarise @notes.txt please');
      expect(JSON.stringify(result.messages[0])).toContain('remember the milk');
      expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).toContain('remember the milk');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('a failing prompt transform ends the run failed without calling the model', async () => {
    const model = mockModel([{ text: ['never'] }]);
    const agent = createAgent({ model, transformPrompt: () => Promise.reject(new Error('disk gone')) });
    const result = await agent.run('hi');
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toBe('transformPrompt failed: disk gone');
    expect(model.doStreamCalls).toHaveLength(0);
    expect(agent.isRunning).toBe(false);
  });
});
