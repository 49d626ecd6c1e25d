import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitignoreRules } from '../../src/tools/gitignore-rules.js';
import { globTool, grepTool, lsTool } from '../../src/tools/index.js';

const context = { toolCallId: 't', messages: [], context: {} };

describe('gitignore rules', () => {
  const rulesOf = (files: Record<string, string>) => new GitignoreRules(async (directory) => files[directory]);

  it('applies the root file to every path and a nested file to the paths below its directory', async () => {
    const rules = rulesOf({ '': 'dist/\n*.log\n', 'packages/app': 'generated.ts\n' });
    expect(await rules.ignores('dist/index.js')).toBe(true);
    expect(await rules.ignores('dist', true)).toBe(true);
    expect(await rules.ignores('src/debug.log')).toBe(true);
    expect(await rules.ignores('src/index.ts')).toBe(false);
    expect(await rules.ignores('packages/app/generated.ts')).toBe(true);
    expect(await rules.ignores('packages/lib/generated.ts')).toBe(false);
  });

  it('keeps a negated file and anchors a leading slash to its own directory', async () => {
    const rules = rulesOf({ '': '*.env\n!example.env\n/build\n' });
    expect(await rules.ignores('prod.env')).toBe(true);
    expect(await rules.ignores('example.env')).toBe(false);
    expect(await rules.ignores('build/out.js')).toBe(true);
    expect(await rules.ignores('src/build/out.js')).toBe(false);
  });

  it('applies below a directory searched that is ignored only the files from which on none ignores it', async () => {
    const files = { '': 'dist/\n*.log\n', dist: 'assets/\n*.map\n' };
    const inDist = new GitignoreRules(async (directory) => files[directory as keyof typeof files], 'dist');
    expect(await inDist.ignores('dist/index.js')).toBe(false);
    expect(await inDist.ignores('dist/build.log')).toBe(false);
    expect(await inDist.ignores('dist/index.js.map')).toBe(true);
    expect(await inDist.ignores('dist/assets/app.js')).toBe(true);
    const inAssets = new GitignoreRules(async (directory) => files[directory as keyof typeof files], 'dist/assets');
    expect(await inAssets.ignores('dist/assets/app.js')).toBe(false);
    expect(await inAssets.ignores('dist/assets/app.js.map')).toBe(false);
    const inSrc = new GitignoreRules(async (directory) => files[directory as keyof typeof files], 'src');
    expect(await inSrc.ignores('src/debug.log')).toBe(true);
  });

  it('reads each directory\'s file once', async () => {
    const reads: string[] = [];
    const rules = new GitignoreRules(async (directory) => {
      reads.push(directory);
      return undefined;
    });
    await rules.ignores('a/b/one.ts');
    await rules.ignores('a/b/two.ts');
    expect(reads).toEqual(['', 'a', 'a/b']);
  });
});

describe('search tools and .gitignore', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'loopchart-gitignore-'));
    mkdirSync(path.join(root, 'src'));
    mkdirSync(path.join(root, 'dist'));
    writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
    writeFileSync(path.join(root, 'src', 'index.ts'), 'export const TODO = 1;\n');
    writeFileSync(path.join(root, 'dist', 'index.js'), 'const TODO = 1;\n');
    writeFileSync(path.join(root, 'debug.log'), 'TODO in a log\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('grep, glob and ls skip what .gitignore ignores, and say so in ls', async () => {
    expect(await grepTool({ cwd: root }).execute({ pattern: 'TODO' }, context)).toBe(
      ['src/index.ts:1: export const TODO = 1;', '', '[2 files ignored by .gitignore not searched: debug.log, dist/index.js; give one of them, or an ignored directory, as path to search it]'].join('\n'),
    );
    expect(await globTool({ cwd: root }).execute({ pattern: '**/*' }, context)).toBe(
      ['.gitignore', 'src/index.ts', '', '[2 matching files ignored by .gitignore not listed: debug.log, dist/index.js; read and grep take such a file as path, and glob lists in an ignored directory named as path]'].join('\n'),
    );
    expect(await lsTool({ cwd: root }).execute({}, context)).toBe(['.gitignore', 'src/', '[2 entries ignored by .gitignore not shown]'].join('\n'));
  });

  it('grep, glob and ls look in a directory the model names although .gitignore ignores it, as ripgrep does, instead of answering that nothing is there', async () => {
    mkdirSync(path.join(root, 'dist', 'assets'));
    writeFileSync(path.join(root, 'dist', 'assets', 'app.js'), 'const TODO = 2;\n');
    writeFileSync(path.join(root, 'dist', 'build.log'), 'TODO in a build log\n');
    // The .gitignore files in the directory named and below it still apply.
    writeFileSync(path.join(root, 'dist', '.gitignore'), '*.map\n');
    writeFileSync(path.join(root, 'dist', 'assets', 'app.js.map'), 'TODO in a source map\n');
    const grep = grepTool({ cwd: root });
    const glob = globTool({ cwd: root });
    expect(await grep.execute({ pattern: 'TODO', path: 'dist' }, context)).toBe(
      ['dist/assets/app.js:1: const TODO = 2;', 'dist/build.log:1: TODO in a build log', 'dist/index.js:1: const TODO = 1;', '', '[1 file ignored by .gitignore not searched: dist/assets/app.js.map; give one of them, or an ignored directory, as path to search it]'].join('\n'),
    );
    expect(await grep.execute({ pattern: 'TODO', path: 'dist/assets' }, context)).toBe(['dist/assets/app.js:1: const TODO = 2;', '', '[1 file ignored by .gitignore not searched: dist/assets/app.js.map; give one of them, or an ignored directory, as path to search it]'].join('\n'));
    expect(await glob.execute({ pattern: '**/*.js', path: 'dist' }, context)).toBe(['dist/assets/app.js', 'dist/index.js'].join('\n'));
    expect(await lsTool({ cwd: root }).execute({ path: 'dist' }, context)).toBe(['.gitignore', 'assets/', 'build.log', 'index.js'].join('\n'));
    expect(await lsTool({ cwd: root }).execute({ path: 'dist/assets' }, context)).toBe(['app.js', '[1 entry ignored by .gitignore not shown]'].join('\n'));
    // From higher up, the ignored directory stays left out.
    expect(await glob.execute({ pattern: '**/*.js' }, context)).toBe(
      "No files match '**/*.js' in .\n\n[2 matching files ignored by .gitignore not listed: dist/assets/app.js, dist/index.js; read and grep take such a file as path, and glob lists in an ignored directory named as path]",
    );
    expect(await grep.execute({ pattern: 'TODO' }, context)).toBe(
      [
        'src/index.ts:1: export const TODO = 1;',
        '',
        '[6 files ignored by .gitignore not searched: debug.log, dist/.gitignore, dist/assets/app.js, dist/assets/app.js.map, dist/build.log, and 1 more; give one of them, or an ignored directory, as path to search it]',
      ].join('\n'),
    );
    expect(await grep.execute({ pattern: 'NOWHERE' }, context)).toMatch(/^No matches for \/NOWHERE\/ in \.\n\n\[6 files ignored by \.gitignore not searched: /);
  });

  it('finds everything again with respectGitignore: false', async () => {
    const grep = (await grepTool({ cwd: root, respectGitignore: false }).execute({ pattern: 'TODO' }, context)) as string;
    expect(grep.split('\n').sort()).toEqual(['debug.log:1: TODO in a log', 'dist/index.js:1: const TODO = 1;', 'src/index.ts:1: export const TODO = 1;']);
    expect(await lsTool({ cwd: root, respectGitignore: false }).execute({ path: 'dist' }, context)).toBe('index.js');
  });

  it('pass over a .gitignore that is a FIFO, which blocked them for ever, or a link (to /dev/zero, which never ends, or out of the workspace), as git does', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'loopchart-gitignore-outside-'));
    try {
      writeFileSync(path.join(outside, 'rules'), 'index.js\n');
      rmSync(path.join(root, '.gitignore'));
      execFileSync('mkfifo', [path.join(root, '.gitignore')]);
      symlinkSync('/dev/zero', path.join(root, 'src', '.gitignore'));
      symlinkSync(path.join(outside, 'rules'), path.join(root, 'dist', '.gitignore'));
      expect(await lsTool({ cwd: root }).execute({}, context)).toBe(['.gitignore', 'debug.log', 'dist/', 'src/'].join('\n'));
      expect(await globTool({ cwd: root }).execute({ pattern: '**/*.{ts,js}' }, context)).toBe(['dist/index.js', 'src/index.ts'].join('\n'));
      const grep = (await grepTool({ cwd: root }).execute({ pattern: 'TODO' }, context)) as string;
      expect(grep.split('\n')).toEqual(['debug.log:1: TODO in a log', 'dist/index.js:1: const TODO = 1;', 'src/index.ts:1: export const TODO = 1;']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
