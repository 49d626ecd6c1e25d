import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

let dir: string;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
}, 60_000);

const toolLoop: ScriptFile = {
  prompt: 'What is in notes.txt?',
  tools: ['read', 'ls'],
  files: { 'notes.txt': 'buy <script>alert(1)</script> milk\n' },
  turns: [
    { text: 'Listing first.', toolCalls: [{ name: 'ls', input: {} }] },
    { text: 'Reading it.', toolCalls: [{ name: 'read', input: { path: 'notes.txt' } }] },
    { text: 'It says to buy milk.' },
  ],
};

describe.concurrent('loopchart run --trace / --report, and loopchart report', () => {
  it('run --trace writes the run trace as JSON and --report its HTML report, next to --json', async () => {
    const script = await writeScript(dir, 'loop.json', toolLoop);
    const traceFile = path.join(dir, 'loop.trace.json');
    const reportFile = path.join(dir, 'loop.html');
    const { code, stdout, stderr } = await runCli(['run', script, '--trace', traceFile, '--report', reportFile, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    const trace = JSON.parse(await readFile(traceFile, 'utf8'));
    expect(trace).toEqual(result.trace);
    expect(trace).toMatchObject({ version: 1, outcome: 'completed', steps: [{ step: 1 }, { step: 2 }, { step: 3 }] });

    const html = await readFile(reportFile, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>loopchart · loop.json · completed</title>');
    expect(html).toMatch(/data-state="running\.toolExec" data-visited="true" data-visits="2"/);
    expect(html).toMatch(/data-state="running\.awaitingApproval" data-visited="false"/);
    expect(html).toContain('buy &lt;script&gt;alert(1)&lt;/script&gt; milk');
    expect(html).not.toMatch(/<script|https?:\/\//);
  });

  it('says where the files went in human output', async () => {
    const script = await writeScript(dir, 'loop-human.json', toolLoop);
    const traceFile = path.join(dir, 'human.trace.json');
    const { code, stderr } = await runCli(['run', script, '--trace', traceFile, '--report', path.join(dir, 'human.html')]);
    expect(code).toBe(0);
    expect(stderr).toContain(`trace: ${traceFile}\n`);
    expect(stderr).toContain(`report: ${path.join(dir, 'human.html')}\n`);
  });

  it('writes the files for a run that fails too', async () => {
    const script = await writeScript(dir, 'fails.json', { prompt: 'hi', turns: [{ error: { status: 400, message: 'bad request' } }] });
    const traceFile = path.join(dir, 'fails.trace.json');
    const { code } = await runCli(['run', script, '--trace', traceFile, '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(await readFile(traceFile, 'utf8'))).toMatchObject({ outcome: 'failed', error: { kind: 'invalid-request' } });
  });

  it('refuses to start a run whose files could not be written', async () => {
    const script = await writeScript(dir, 'nowhere.json', toolLoop);
    const { code, stdout, stderr } = await runCli(['run', script, '--report', path.join(dir, 'missing-dir', 'r.html'), '--json']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--report ${path.join(dir, 'missing-dir', 'r.html')}: the directory ${path.join(dir, 'missing-dir')} does not exist`);
  });

  it('report renders a saved trace to -o FILE, or to stdout, and takes the RunResult of --json too', async () => {
    const script = await writeScript(dir, 'saved.json', toolLoop);
    const traceFile = path.join(dir, 'saved.trace.json');
    const run = await runCli(['run', script, '--trace', traceFile, '--json']);
    expect(run.code).toBe(0);
    const resultFile = path.join(dir, 'saved.result.json');
    await writeFile(resultFile, run.stdout);

    const out = path.join(dir, 'saved.html');
    const toFile = await runCli(['report', traceFile, '-o', out]);
    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: `report: ${out}\n` });
    const html = await readFile(out, 'utf8');
    expect(html).toContain('<title>loopchart run report · saved.trace.json · completed</title>');
    expect(html).toMatch(/data-state="running\.toolExec" data-visited="true"/);

    const toStdout = await runCli(['report', resultFile]);
    expect(toStdout.code).toBe(0);
    expect(toStdout.stdout).toMatch(/^<!doctype html>[\s\S]*data-state="running\.toolExec" data-visited="true"[\s\S]*<\/html>\n$/);
  });

  it('report names what is wrong with a file that is not a trace, and exits 2', async () => {
    const notTrace = path.join(dir, 'not-a-trace.json');
    await writeFile(notTrace, JSON.stringify({ version: 1, runId: 'r', outcome: 'completed', steps: 'many' }));
    const invalid = await runCli(['report', notTrace, '-o', path.join(dir, 'never.html')]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(new RegExp(`^loopchart: ${notTrace.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a loopchart run trace:\n`));
    expect(invalid.stderr).toContain('  - steps: ');
    expect(invalid.stderr).toContain('  - states: ');

    const notJson = path.join(dir, 'not-json.json');
    await writeFile(notJson, 'outcome: completed\n');
    const garbled = await runCli(['report', notJson]);
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toContain(`loopchart: ${notJson} is not JSON (`);

    const missing = await runCli(['report', path.join(dir, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`loopchart: cannot read ${path.join(dir, 'missing.json')}: no such file\n`);
  });

  it('report --help explains the command', async () => {
    const { code, stdout } = await runCli(['report', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: loopchart report <trace\.json> \[-o report\.html\]/);
    expect(stdout).toContain('-o, --output FILE');
  });
});
