import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandWords, installingSection, npmInstall } from './readme-install.js';

describe("the README's Installing section, as commands", () => {
  const readme = ['# x', '', '## Installing', '', '```sh', 'npm init -y   # an app', 'npm install a b   # two', 'npm install -D c', '```', '', 'text', '', '```sh', 'npx tsx x.ts   # try', '```', '', '## Next', '```sh', 'no', '```'].join('\n');

  it('gives the set-up block and the try-it block of that section only', () => {
    expect(installingSection(readme)).toEqual({ setUp: ['npm init -y   # an app', 'npm install a b   # two', 'npm install -D c'], tryIt: ['npx tsx x.ts   # try'] });
  });

  it('reads what an npm install line installs, and nothing from other lines', () => {
    expect(npmInstall('npm install loopchart ai zod   # ai is a peer')).toEqual({ packages: ['loopchart', 'ai', 'zod'], dev: false });
    expect(npmInstall('npm install -D tsx')).toEqual({ packages: ['tsx'], dev: true });
    expect(npmInstall('npm init -y && npm pkg set type=module')).toBeUndefined();
    expect(() => npmInstall('npm install --global tsx')).toThrow('--global');
  });

  it('splits a command into words without its comment', () => {
    expect(commandWords('npx tsx node_modules/loopchart/examples/embedding.ts   # the example below')).toEqual(['npx', 'tsx', 'node_modules/loopchart/examples/embedding.ts']);
  });

  it('says what is missing', () => {
    expect(() => installingSection('# x\n')).toThrow('no "## Installing" section');
    expect(() => installingSection('## Installing\n```sh\nnpm i\n```\n')).toThrow('1 sh blocks');
  });

  it("finds both blocks in this project's README", () => {
    const { setUp, tryIt } = installingSection(readFileSync('README.md', 'utf8'));
    expect(setUp.some((line) => npmInstall(line)?.packages.includes('loopchart'))).toBe(true);
    expect(tryIt.length).toBeGreaterThanOrEqual(3);
  });
});
