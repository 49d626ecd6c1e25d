import fc from 'fast-check';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { GLOB_MAX_RESULTS, globTool } from '../../src/tools/glob.js';
import { grepTool } from '../../src/tools/grep.js';
import { readTool } from '../../src/tools/read.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('glob tool', () => {
  const ws = useTempWorkspace();
  const glob = (input: object, signal?: AbortSignal) => runTool(globTool({ cwd: ws.root }), input, signal);

  // macOS keeps names valid UTF-8; Linux file systems take any bytes.
  it.skipIf(process.platform !== 'linux')('glob and grep say which files they leave out because their names are not valid UTF-8, and read explains the name', async () => {
    await writeFile(Buffer.concat([Buffer.from(`${ws.root}/bad`), Buffer.from([0xff]), Buffer.from('.txt')]), 'needle\n');
    await ws.file('good.txt', 'needle\n');
    const notice =
      '[1 file whose name is not valid UTF-8 left out (shown with \uFFFD): bad\uFFFD.txt; the tools cannot open a file by such a name: rename it with bash to reach it]';
    await expect(glob({ pattern: '**' })).resolves.toBe(`good.txt\n\n${notice}`);
    await expect(runTool(grepTool({ cwd: ws.root }), { pattern: 'needle' })).resolves.toBe(`good.txt:1: needle\n\n${notice}`);
    await expect(runTool(readTool({ cwd: ws.root }), { path: 'bad\uFFFD.txt' })).rejects.toThrow(
      "Path 'bad\uFFFD.txt' does not exist: if ls showed it, its name is not valid UTF-8 (U+FFFD stands for bytes that are not), and no tool can open it by that name; rename it with bash",
    );
  });

  it('returns matching files relative to the workspace root, sorted', async () => {
    await ws.file('src/b.ts', '');
    await ws.file('src/a.ts', '');
    await ws.file('src/deep/c.ts', '');
    await ws.file('README.md', '');
    await expect(glob({ pattern: '**/*.ts' })).resolves.toBe('src/a.ts\nsrc/b.ts\nsrc/deep/c.ts');
  });

  it('matches relative to path but still reports workspace-relative paths', async () => {
    await ws.file('src/deep/c.ts', '');
    await ws.file('other/d.ts', '');
    await expect(glob({ pattern: '**/*.ts', path: 'src' })).resolves.toBe('src/deep/c.ts');
  });

  it('includes hidden files but skips node_modules and .git', async () => {
    await ws.file('.config/x.json', '');
    await ws.file('node_modules/pkg/index.json', '');
    await ws.file('.git/config.json', '');
    await expect(glob({ pattern: '**/*.json' })).resolves.toBe('.config/x.json');
  });

  it('says that node_modules and .git are not walked into when the pattern names them, rather than only that nothing matches', async () => {
    await ws.file('node_modules/zod/package.json', '');
    await ws.file('.git/config', '');
    await expect(glob({ pattern: 'node_modules/zod/*.json' })).resolves.toBe(
      "No files match 'node_modules/zod/*.json' in .\n\n[node_modules is not walked into from above: give path 'node_modules' (or a directory inside it) to look there]",
    );
    await expect(glob({ pattern: '**/.git/*' })).resolves.toBe(
      "No files match '**/.git/*' in .\n\n[.git is not walked into from above: give a .git directory itself (or a directory inside it) as path to look there]",
    );
    await ws.file('packages/a/node_modules/zod/package.json', '');
    await expect(glob({ pattern: 'node_modules/zod/*.json', path: 'packages/a' })).resolves.toBe(
      "No files match 'node_modules/zod/*.json' in packages/a\n\n[node_modules is not walked into from above: give path 'packages/a/node_modules' (or a directory inside it) to look there]",
    );
    await expect(glob({ pattern: '*/package.json', path: 'node_modules' })).resolves.toBe('node_modules/zod/package.json');
  });

  it('says so when nothing matches', async () => {
    await expect(glob({ pattern: '*.nothing' })).resolves.toBe("No files match '*.nothing' in .");
  });

  it('shows at most maxResults files (default 500) with a notice', async () => {
    expect(GLOB_MAX_RESULTS).toBe(500);
    for (const name of ['e', 'a', 'd', 'b', 'c']) await ws.file(`${name}.txt`, '');
    const output = await runTool(globTool({ cwd: ws.root, maxResults: 3 }), { pattern: '*.txt' });
    expect(output).toBe('a.txt\nb.txt\nc.txt\n\n[truncated: showing 3 of 5 files; narrow the pattern or path]');
  });

  it('does not list files behind a symlinked directory that points outside', async () => {
    await symlink(ws.outside, path.join(ws.root, 'escape'));
    await ws.file('inside.txt', '');
    await expect(glob({ pattern: 'escape/*' })).resolves.toMatch(/^No files match/);
    await expect(glob({ pattern: '**/*.txt' })).resolves.toBe('inside.txt');
  });

  it('reports a path that is not a directory', async () => {
    await ws.file('a.txt', '');
    await expect(glob({ pattern: '*', path: 'a.txt' })).rejects.toThrow("Path 'a.txt' is not a directory");
  });

  it('stops when the abort signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(glob({ pattern: '**' }, controller.signal)).rejects.toThrow('glob was aborted');
  });
});

describe('glob cannot block the process', () => {
  const ws = useTempWorkspace();
  // Twelve stars in one segment over a long name: picomatch's regex backtracks for hours.
  const evil = `${'*a'.repeat(12)}*b`;
  const longName = 'a'.repeat(200);

  it('a pattern that backtracks catastrophically is stopped by the time limit and is an error result the model sees', async () => {
    await ws.file(longName, '');
    await expect(runTool(globTool({ cwd: ws.root, timeLimitMs: 300 }), { pattern: evil })).rejects.toThrow(
      `glob stopped after 0.3 s matching '${evil}': the pattern takes too long`,
    );
  });

  it('abort() stops a runaway pattern, and the event loop stays free meanwhile', async () => {
    await ws.file(longName, '');
    const controller = new AbortController();
    const pending = runTool(globTool({ cwd: ws.root }), { pattern: evil }, controller.signal);
    // The event loop is free while the pattern runs: this timer fires.
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toThrow('glob was aborted');
  });

  it('a runaway pattern does not stop a search running beside it', async () => {
    await ws.file(longName, '');
    await ws.file('ok.txt', 'needle here\n');
    const [runaway, search] = await Promise.allSettled([
      runTool(globTool({ cwd: ws.root, timeLimitMs: 300 }), { pattern: evil }),
      runTool(grepTool({ cwd: ws.root }), { pattern: 'needle' }),
    ]);
    expect(runaway.status).toBe('rejected');
    expect(search).toEqual({ status: 'fulfilled', value: 'ok.txt:1: needle here' });
  });

  it('a negated pattern is refused rather than matching nothing', async () => {
    await expect(runTool(globTool({ cwd: ws.root }), { pattern: '!*.ts' })).rejects.toThrow("Glob pattern '!*.ts' is negated");
  });

  it('finds exactly the files picomatch matches, for any pattern over any small tree (fast-check)', async () => {
    const name = fc.constantFrom('a', 'b', 'ab', '.c', 'a.ts', 'b.js', '(x)', '{y}');
    const file = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
    const segment = fc.stringMatching(/^[ab.*?{},@()|!+-]{1,5}$/);
    const pattern = fc
      .array(fc.oneof(segment, fc.constant('**'), name), { minLength: 1, maxLength: 3 })
      .map((parts) => parts.join('/'))
      // Negated patterns and `..` are refused (tested above and in confinement.test.ts).
      .filter((candidate) => (!candidate.startsWith('!') || candidate.startsWith('!(')) && !candidate.includes('..'));
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(file, { minLength: 1, maxLength: 6 }), pattern, async (files, candidate) => {
        const root = path.join(ws.root, `round-${round++}`);
        const written: string[] = [];
        for (const relative of files) {
          // A name cannot be both a file and a directory.
          if (written.some((other) => other.startsWith(`${relative}/`) || relative.startsWith(`${other}/`))) continue;
          await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
          await writeFile(path.join(root, relative), '');
          written.push(relative);
        }
        // The pattern as tinyglobby reads it: no trailing slash, `./` and `a//b` normalised.
        const normalised = path.posix.normalize(candidate.replace(/\/$/, ''));
        const isMatch = picomatch(normalised, { dot: true });
        const expected = written.filter((relative) => isMatch(relative)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        const output = await runTool(globTool({ cwd: root }), { pattern: candidate });
        expect(output.startsWith('No files match') ? [] : output.split('\n')).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
