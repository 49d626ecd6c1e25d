/**
 * The files the CLI writes (`--trace`, `--report`, `--record`, `report --output`)
 * hold prompts, file contents and tool output: only their owner may read them,
 * like the session files.
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_FILE_MODE, writeOutputFile } from '../../src/cli/output-files.js';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('files the CLI writes', () => {
  it('--trace, --report and --record of a run, and report --output, are readable by their owner only (0600)', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'echo.json', {
      prompt: 'Read it.',
      tools: ['read'],
      files: { 'notes.txt': 'tool output\n' },
      turns: [{ toolCalls: [{ name: 'read', input: { path: 'notes.txt' } }] }, { text: 'Done.' }],
    });
    const files = { trace: path.join(dir, 'run.trace.json'), report: path.join(dir, 'run.html'), record: path.join(dir, 'run.yaml') };

    const run = await runCli(['run', script, '--trace', files.trace, '--report', files.report, '--record', files.record]);
    expect(run.code).toBe(0);
    const rendered = path.join(dir, 'again.html');
    const report = await runCli(['report', files.trace, '--output', rendered]);
    expect(report.code).toBe(0);

    for (const file of [...Object.values(files), rendered]) expect((await modeOf(file)).toString(8), file).toBe(PRIVATE_FILE_MODE.toString(8));
  });

  it('makes a file that already exists private before it writes the new content into it', async () => {
    const file = path.join(await tempDir(), 'old.trace.json');
    await writeFile(file, 'an earlier trace', { mode: 0o644 });

    await writeOutputFile('--trace', file, 'the new trace');

    expect((await modeOf(file)).toString(8)).toBe('600');
  });

  it('leaves the mode of what is not a regular file alone (/dev/null)', async () => {
    const before = await modeOf('/dev/null');
    await writeOutputFile('--trace', '/dev/null', 'discarded');
    expect(await modeOf('/dev/null')).toBe(before);
  });
});
