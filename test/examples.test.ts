import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../src/cli/run-command.js';

const run = promisify(execFile);

describe('examples', () => {
  it('the README embeds examples/embedding.ts verbatim', async () => {
    const [readme, example] = await Promise.all([readFile('README.md', 'utf8'), readFile('examples/embedding.ts', 'utf8')]);
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  it('the embedding example runs as written and completes', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/embedding.ts'], { timeout: 30_000 });
    expect(stdout).toContain('It is 4 °C in Oslo.');
    expect(stdout).toMatch(/completed after 2 steps/);
  });

  it('the README starts with the two set-up commands', async () => {
    const readme = await readFile('README.md', 'utf8');
    const commands = readme.split('\n').slice(2, 6);
    expect(commands.filter((line) => line.startsWith('npm install && npm'))).toEqual([
      expect.stringMatching(/^npm install && npm start\b/),
      expect.stringMatching(/^npm install && npm test\b/),
    ]);
  });

  const scripts = readdirSync('examples').filter((file) => /\.(ya?ml|json)$/.test(file));

  it('ships the bundled demo script', () => {
    expect(scripts).toContain('demo.yaml');
  });

  it.each(scripts)('examples/%s meets its expect block', async (file) => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    stdout.resume();
    const code = await runCommand({
      script: `examples/${file}`,
      json: false,
      events: false,
      stdout,
      stderr,
      color: false,
      interrupted: new Promise(() => {}),
    });
    expect(errors).not.toContain('expectations failed');
    expect(code).toBe(0);
  });
});
