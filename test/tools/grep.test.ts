import fc from 'fast-check';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { grepTool } from '../../src/tools/grep.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('grep tool', () => {
  const ws = useTempWorkspace();
  const grep = (input: object, signal?: AbortSignal) => runTool(grepTool({ cwd: ws.root }), input, signal);

  it('returns file:line: text for every matching line, files in sorted order', async () => {
    await ws.file('src/b.ts', 'const x = 1;\n// TODO later\n');
    await ws.file('src/a.ts', '// TODO first\nok\n');
    await expect(grep({ pattern: 'TODO' })).resolves.toBe('src/a.ts:1: // TODO first\nsrc/b.ts:2: // TODO later');
  });

  it('supports regular expressions and case-insensitive search', async () => {
    await ws.file('a.txt', 'Error: one\nwarning\nERROR two\n');
    await expect(grep({ pattern: '^error', ignoreCase: true })).resolves.toBe('a.txt:1: Error: one\na.txt:3: ERROR two');
  });

  it('treats the pattern as plain text with literal', async () => {
    await ws.file('a.txt', 'a.b(\naxb(\n');
    await expect(grep({ pattern: 'a.b(', literal: true })).resolves.toBe('a.txt:1: a.b(');
  });

  it('rejects an invalid regular expression with a clear message', async () => {
    await expect(grep({ pattern: 'foo(' })).rejects.toThrow(/Invalid regular expression 'foo\('/);
  });

  it('refuses a pattern written as a JavaScript regex literal, which would search for its slashes and match nothing, and says how to write it', async () => {
    await ws.file('a.ts', '// todo: one\n// TODO: two\n');
    await expect(grep({ pattern: '/TODO/i' })).rejects.toThrow(
      "Pattern '/TODO/i' is written as a JavaScript regex literal, but grep takes the regular expression alone: give pattern 'TODO' with ignoreCase: true",
    );
    await expect(grep({ pattern: '/TODO/' })).rejects.toThrow(/give pattern 'TODO'\. To search for the slashes themselves, set literal to true or escape them/);
    await expect(grep({ pattern: 'TODO', ignoreCase: true })).resolves.toBe('a.ts:1: // todo: one\na.ts:2: // TODO: two');
  });

  it('still searches for slashes given as literal text or escaped', async () => {
    await ws.file('routes.ts', "get('/api/users')\nget('/web/')\n");
    await expect(grep({ pattern: '/api/', literal: true })).resolves.toBe("routes.ts:1: get('/api/users')");
    await expect(grep({ pattern: '\\/api\\/' })).resolves.toBe("routes.ts:1: get('/api/users')");
    await expect(grep({ pattern: '///', literal: true })).resolves.toMatch(/^No matches/);
    await expect(grep({ pattern: '///' })).resolves.toMatch(/^No matches/);
  });

  it('searches a path with several slashes, which no regex literal can be (its body would end at the second slash)', async () => {
    await ws.file('deploy.sh', 'cp app /usr/local/bin/app\nget /api/v1/users/ ok\n');
    await expect(grep({ pattern: '/usr/local/bin/' })).resolves.toBe('deploy.sh:1: cp app /usr/local/bin/app');
    await expect(grep({ pattern: '/api/v1/users/' })).resolves.toBe('deploy.sh:2: get /api/v1/users/ ok');
    await expect(grep({ pattern: '/[a/b]/' })).rejects.toThrow(/regex literal/);
    await expect(grep({ pattern: '/a\\/b/i' })).rejects.toThrow(/give pattern 'a\\\/b' with ignoreCase/);
  });

  it('filters files by glob, matching name-only globs at any depth', async () => {
    await ws.file('src/deep/a.ts', 'hit\n');
    await ws.file('src/a.js', 'hit\n');
    await expect(grep({ pattern: 'hit', glob: '*.ts' })).resolves.toBe('src/deep/a.ts:1: hit');
    await expect(grep({ pattern: 'hit', glob: 'src/*.js' })).resolves.toBe('src/a.js:1: hit');
  });

  it('refuses a glob that could never match a file of the workspace, as glob does, instead of finding nothing', async () => {
    await ws.file('src/a.ts', 'TODO\n');
    await expect(grep({ pattern: 'TODO', glob: '/etc/*' })).rejects.toThrow("Glob pattern '/etc/*' must be relative to the workspace, not absolute");
    await expect(grep({ pattern: 'TODO', glob: '../**' })).rejects.toThrow("Glob pattern '../**' must not contain '..' segments");
    await expect(grep({ pattern: 'TODO', glob: '' })).rejects.toThrow("glob '' is empty; give a pattern such as '*.ts', or leave glob out to search every file");
  });

  it('refuses a glob with a path that is a file, instead of searching the file regardless', async () => {
    await ws.file('src/a.ts', 'TODO\n');
    await expect(grep({ pattern: 'TODO', path: 'src/a.ts', glob: '*.md' })).rejects.toThrow(
      "glob '*.md' chooses files in a directory, but path 'src/a.ts' is a file; leave glob out, or give a directory as path",
    );
  });

  it('searches a single file given as path', async () => {
    await ws.file('src/a.ts', 'one\nhit\n');
    await ws.file('src/b.ts', 'hit\n');
    await expect(grep({ pattern: 'hit', path: 'src/a.ts' })).resolves.toBe('src/a.ts:2: hit');
  });

  it('refuses a binary file given as path, instead of saying it holds no match', async () => {
    await ws.file('bin.dat', Buffer.from('hit\0\n'));
    await expect(grep({ pattern: 'hit', path: 'bin.dat' })).rejects.toThrow(
      "File 'bin.dat' looks binary (it contains NUL bytes); grep searches only text files",
    );
  });

  it('skips binary files, node_modules and .git', async () => {
    await ws.file('bin.dat', Buffer.from('hit\0\n'));
    await ws.file('node_modules/p/index.js', 'hit\n');
    await ws.file('.git/HEAD', 'hit\n');
    await ws.file('.hidden', 'hit\n');
    await expect(grep({ pattern: 'hit' })).resolves.toBe('.hidden:1: hit');
  });

  it('cuts matched lines at 500 characters', async () => {
    await ws.file('a.txt', `hit${'z'.repeat(1000)}\n`);
    await expect(grep({ pattern: 'hit' })).resolves.toBe(`a.txt:1: hit${'z'.repeat(497)}… [line cut: 1003 chars]`);
  });

  it('stops after 200 matches with a notice', async () => {
    await ws.file('a.txt', 'hit\n'.repeat(250));
    const output = await grep({ pattern: 'hit' });
    expect(output.split('\n').filter((line) => line.startsWith('a.txt:'))).toHaveLength(200);
    expect(output).toMatch(/\[truncated: stopped after 200 matches; narrow the pattern, path or glob\]$/);
  });

  it('honours a custom maxMatches', async () => {
    await ws.file('a.txt', 'hit\nhit\nhit\n');
    await expect(runTool(grepTool({ cwd: ws.root, maxMatches: 2 }), { pattern: 'hit' })).resolves.toBe(
      'a.txt:1: hit\na.txt:2: hit\n\n[truncated: stopped after 2 matches; narrow the pattern, path or glob]',
    );
  });

  it('says so when nothing matches', async () => {
    await ws.file('a.txt', 'nothing here\n');
    await expect(grep({ pattern: 'absent' })).resolves.toBe('No matches for /absent/ in .');
  });

  it('does not search files reached through symlinks that point outside', async () => {
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'secret-link.txt'));
    await expect(grep({ pattern: 'secret' })).resolves.toMatch(/^No matches/);
    await expect(grep({ pattern: 'secret', glob: 'escape/*' })).resolves.toMatch(/^No matches/);
  });

  it('stops when the abort signal fires', async () => {
    await ws.file('a.txt', 'hit\n');
    const controller = new AbortController();
    controller.abort();
    await expect(grep({ pattern: 'hit' }, controller.signal)).rejects.toThrow('grep was aborted');
  });
});

describe('grep cannot block the process', () => {
  const ws = useTempWorkspace();
  const evil = `${'a'.repeat(34)}!\n`;

  it('a catastrophically backtracking pattern is stopped by the time limit and is an error result the model sees', async () => {
    await ws.file('evil.txt', evil);
    const started = Date.now();
    await expect(runTool(grepTool({ cwd: ws.root, timeLimitMs: 300 }), { pattern: '^(a+)+$' })).rejects.toThrow(/takes too long.*literal/);
    // Minutes, not seconds, if the limit did not hold (2^34 backtracking steps); loose so that a loaded machine passes.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('abort() stops a runaway pattern long before it would end, and the event loop stays free meanwhile', async () => {
    await ws.file('evil.txt', evil);
    const controller = new AbortController();
    const pending = runTool(grepTool({ cwd: ws.root }), { pattern: '^(a+)+$' }, controller.signal);
    // The event loop is free while the pattern runs: this timer fires.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const aborted = Date.now();
    controller.abort();
    await expect(pending).rejects.toThrow(/aborted/);
    expect(Date.now() - aborted).toBeLessThan(30_000);
  });

  it('a glob that backtracks catastrophically is stopped by the time limit and is an error result the model sees', async () => {
    const glob = `${'*a'.repeat(12)}*b`;
    await ws.file('a'.repeat(200), 'needle\n');
    await expect(runTool(grepTool({ cwd: ws.root, timeLimitMs: 300 }), { pattern: 'needle', glob })).rejects.toThrow(
      `grep stopped after 0.3 s matching the glob '${glob}': the glob takes too long`,
    );
  });

  it('after a stopped search the next one works as before', async () => {
    await ws.file('evil.txt', evil);
    await ws.file('ok.txt', 'needle here\n');
    await expect(runTool(grepTool({ cwd: ws.root, timeLimitMs: 200 }), { pattern: '^(a+)+$' })).rejects.toThrow(/takes too long/);
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'needle' })).resolves.toBe('ok.txt:1: needle here');
  });

  it('any pattern over any line ends within its time limit: a match list or an error, never a hang (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a()+*?|.^$!]{1,12}$/), fc.string({ maxLength: 40 }), async (pattern, line) => {
        await ws.file('f.txt', `${line}\n`);
        const started = Date.now();
        await runTool(grepTool({ cwd: ws.root, timeLimitMs: 200 }), { pattern }).catch((error: unknown) => error);
        expect(Date.now() - started).toBeLessThan(20_000);
      }),
      { numRuns: 40 },
    );
  });
});
