import fc from 'fast-check';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GREP_WINDOW_BYTES, grepTool } from '../../src/tools/grep.js';
import { regexRunner } from '../../src/tools/regex-worker.js';
import { WorkerDeadlineError } from '../../src/tools/bounded-worker.js';
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

  it('a pattern stopped by the time limit after matches were found keeps them, and says which files were not searched', async () => {
    await ws.file('a.txt', 'aaa\n');
    await ws.file('evil.txt', evil);
    await ws.file('later.txt', 'aaaa\n');
    await expect(runTool(grepTool({ cwd: ws.root, timeLimitMs: 300 }), { pattern: '^(a+)+$' })).resolves.toBe(
      'a.txt:1: aaa\n\n[stopped after 0.3 s: evil.txt and the 1 file(s) after it were not searched; give a narrower path or glob, or a simpler pattern]',
    );
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

describe('grep searches files larger than one window (10 MB), window by window', () => {
  const ws = useTempWorkspace();
  const grep = (input: object, signal?: AbortSignal) => runTool(grepTool({ cwd: ws.root }), input, signal);
  // 110,000 lines of 100 bytes: 11 MB, past the first 10 MB window. Line n covers bytes (n-1)*100 … n*100-1.
  const LINE_BYTES = 100;
  const bigLog = (lines: Record<number, string>, count = 110_000): Buffer => {
    const content = Buffer.alloc(count * LINE_BYTES, 'x');
    for (let line = 1; line <= count; line++) content[line * LINE_BYTES - 1] = 0x0a;
    for (const [line, text] of Object.entries(lines)) content.write(text, (Number(line) - 1) * LINE_BYTES, 'latin1');
    return content;
  };
  // The first line that reaches past the first window: it straddles the window's end.
  const straddling = Math.ceil(GREP_WINDOW_BYTES / LINE_BYTES);

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /**
   * A clock that jumps `lateBy` ms once the first match has run (that match took "that long"), and a
   * matcher that fails call `deadlineOnCall` as the worker's deadline would. Returns a way to set the clock back.
   */
  const slowFirstMatch = (lateBy: number, deadlineOnCall?: number): { onTime(): void } => {
    const now = Date.now.bind(Date);
    let late = 0;
    let calls = 0;
    const match = regexRunner.match.bind(regexRunner);
    vi.spyOn(regexRunner, 'match').mockImplementation(async (...args) => {
      calls += 1;
      if (calls === deadlineOnCall) throw new WorkerDeadlineError('grep');
      const found = await match(...args);
      late = lateBy;
      return found;
    });
    vi.spyOn(Date, 'now').mockImplementation(() => now() + late);
    return { onTime: () => void (late = 0) };
  };

  it('finds a match beyond the first window of a large file asked for directly, numbered as the line it is in the file', async () => {
    await ws.file('big.log', bigLog({ 2: 'ERROR early', 105_000: 'ERROR late' }));
    const output = await grep({ pattern: '^ERROR', path: 'big.log' });
    expect(output).toBe(`big.log:2: ERROR early${'x'.repeat(88)}\nbig.log:105000: ERROR late${'x'.repeat(89)}`);
  });

  it('searches a large file in a directory instead of skipping it', async () => {
    await ws.file('logs/big.log', bigLog({ 105_000: 'ERROR late' }));
    await ws.file('logs/small.log', 'ERROR small\n');
    await expect(grep({ pattern: 'ERROR \\w+' })).resolves.toBe(`logs/big.log:105000: ERROR late${'x'.repeat(89)}\nlogs/small.log:1: ERROR small`);
  });

  it('finds a match in a line that straddles the end of a window', async () => {
    expect((straddling - 1) * LINE_BYTES).toBeLessThan(GREP_WINDOW_BYTES);
    expect(straddling * LINE_BYTES).toBeGreaterThan(GREP_WINDOW_BYTES);
    const content = bigLog({});
    // The needle sits at the end of the line, past the window's end.
    content.write('needle', straddling * LINE_BYTES - 7, 'latin1');
    await ws.file('big.log', content);
    await expect(grep({ pattern: 'needle$', path: 'big.log' })).resolves.toBe(`big.log:${straddling}: ${'x'.repeat(93)}needle`);
  });

  it('checks the abort signal between windows, and stops reading', async () => {
    await ws.file('big.log', bigLog({ 105_000: 'ERROR late' }));
    const controller = new AbortController();
    const match = regexRunner.match.bind(regexRunner);
    const spy = vi.spyOn(regexRunner, 'match').mockImplementation(async (...args) => {
      const found = await match(...args);
      controller.abort();
      return found;
    });
    await expect(grep({ pattern: 'ERROR', path: 'big.log' }, controller.signal)).rejects.toThrow('grep was aborted');
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('stops at the match limit across windows with the notice', async () => {
    await ws.file('big.log', bigLog({ 1: 'hit', 105_000: 'hit', 106_000: 'hit' }));
    await expect(runTool(grepTool({ cwd: ws.root, maxMatches: 2 }), { pattern: '^hit', path: 'big.log' })).resolves.toBe(
      `big.log:1: hit${'x'.repeat(96)}\nbig.log:105000: hit${'x'.repeat(96)}\n\n[truncated: stopped after 2 matches; narrow the pattern, path or glob]`,
    );
  });

  it('when the time limit passes, keeps the matches found and says how far it searched', async () => {
    await ws.file('big.log', bigLog({ 2: 'ERROR early', 105_000: 'ERROR late' }));
    // The first window takes "an hour": the time limit has passed before the second.
    const clock = slowFirstMatch(3_600_000);
    const windowLines = straddling - 1;
    await expect(grep({ pattern: '^ERROR', path: 'big.log' })).resolves.toBe(
      `big.log:2: ERROR early${'x'.repeat(88)}\n\n` +
        `[stopped after 10 s in big.log, having searched its first ${windowLines} lines (10.0 MB of 10.5 MB): the rest of it was not searched; give a narrower path or glob]`,
    );
    clock.onTime();
    await expect(grep({ pattern: 'ERROR late', path: 'big.log' })).rejects.toThrow(
      `grep stopped after 10 s matching /ERROR late/ in big.log, having searched its first ${windowLines} lines (10.0 MB of 10.5 MB), with no match there: the rest of it was not searched.`,
    );
  });

  it('says the time ran out across the files, not that the pattern takes too long, when it stopped between files with no match', async () => {
    await ws.file('a.txt', 'nothing here\n');
    await ws.file('b.txt', 'nor here\n');
    await ws.file('c.txt', 'nor here either\n');
    // The first file's match takes "an hour": the time limit has passed before the second file.
    slowFirstMatch(3_600_000);
    await expect(grep({ pattern: 'needle' })).rejects.toThrow(
      'grep stopped after 10 s with no match for /needle/ in the 1 of 3 files it searched: the time ran out before it searched b.txt and the 1 file(s) after it. Give a narrower path or glob',
    );
  });

  it('does not blame the pattern when the time ran out while a later file was matched with little of it left', async () => {
    await ws.file('a.txt', 'nothing here\n');
    await ws.file('b.txt', 'nor here\n');
    // The first file takes 9 of the 10 s; the second is stopped by the deadline with 1 s to go.
    slowFirstMatch(9_000, 2);
    await expect(grep({ pattern: 'needle' })).rejects.toThrow(
      'grep stopped after 10 s with no match for /needle/ in the 1 of 2 files it searched: the time ran out while it searched b.txt. Give a narrower path or glob',
    );
  });

  it('searches a line longer than a window in pieces, reports it once, and says so', async () => {
    const line = Buffer.alloc(GREP_WINDOW_BYTES + 1000, 'y');
    line.write('needle', 10, 'latin1');
    line.write('needleZ', GREP_WINDOW_BYTES + 100, 'latin1');
    await ws.file('one-line.min.js', Buffer.concat([line, Buffer.from('\nneedle again\n')]));
    const notice =
      "[1 line is longer than 10.0 MB and was searched in pieces of 10.0 MB: a match that crosses a piece's end is not found, and ^ and $ also match at the pieces' ends: one-line.min.js:1]";
    // Both pieces of line 1 match: the line is reported once.
    await expect(grep({ pattern: 'needle', path: 'one-line.min.js' })).resolves.toBe(
      `one-line.min.js:1: ${'y'.repeat(10)}needle${'y'.repeat(484)}… [part of a line over 10.0 MB]\n` + `one-line.min.js:2: needle again\n\n${notice}`,
    );
    // Only the second piece matches, and shows where.
    await expect(grep({ pattern: 'needleZ', path: 'one-line.min.js' })).resolves.toBe(
      `one-line.min.js:1: ${'y'.repeat(100)}needleZ${'y'.repeat(393)}… [part of a line over 10.0 MB]\n\n${notice}`,
    );
  });

  it('refuses a large binary file asked for directly, and skips it in a directory', async () => {
    const content = bigLog({ 105_000: 'hit' });
    content[10] = 0;
    await ws.file('big.bin', content);
    await expect(grep({ pattern: 'hit', path: 'big.bin' })).rejects.toThrow("File 'big.bin' looks binary (it contains NUL bytes); grep searches only text files");
    await expect(grep({ pattern: 'hit' })).resolves.toBe('No matches for /hit/ in .');
  });
});
