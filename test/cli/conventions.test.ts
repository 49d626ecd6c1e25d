import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './support/cli-process.js';

beforeAll(buildCli, 120_000);

describe('the CLI conventions users expect', () => {
  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `loopchart ${version}\n` });
  });

  it('takes the prompt from stdin with run - and with a bare run on piped stdin', async () => {
    for (const args of [['run', '-'], ['run']]) {
      const result = await runCli(args, { stdin: 'Summarise the README\n' });
      // Without --model a prompt is refused, and the refusal quotes the prompt it read.
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('"Summarise the README" is not an existing script file');
    }
    expect(await runCli(['run', '-'], { stdin: '  \n' })).toMatchObject({ code: 2, stderr: expect.stringContaining('the prompt on stdin is empty') });
  });

  it('answers an unknown option in its own words, with the closest valid one', async () => {
    const result = await runCli(['run', 'examples/demo.yaml', '--max-step', '3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run has no option --max-step; did you mean --max-steps?');
  });
});

describe('the built package', () => {
  it('loads with require as well as import (require(esm) on Node >= 20.19), the root and a subpath', () => {
    const requireFromProject = createRequire(path.resolve('package.json'));
    const root = requireFromProject('loopchart') as { createAgent?: unknown };
    const postgres = requireFromProject('loopchart/postgres') as { pgStore?: unknown };
    expect(typeof root.createAgent).toBe('function');
    expect(typeof postgres.pgStore).toBe('function');
  });

  it('ships what its source maps point to, a license, and the examples the README runs', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'src', 'LICENSE', 'examples']));
    const map = JSON.parse(readFileSync('dist/index.js.map', 'utf8')) as { sources: string[] };
    expect(map.sources.map((source) => path.relative('.', path.resolve('dist', source)))).toEqual(['src/index.ts']);
  });
});
