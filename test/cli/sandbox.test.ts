/**
 * The CLI runs bash (and the stdio MCP servers it starts) in bubblewrap: no
 * tool can read the API key the CLI was started with, by any path, and a run
 * without a sandbox says so.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalBinary, findBinary } from '../support/external-binary.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript, type ScriptFile } from './support/scripts.js';

const KEY = 'sk-test-sandbox-7c41e9d2b0a5';
const bwrap = externalBinary({ name: 'bwrap', debianPackage: 'bubblewrap', paths: ['/usr/bin/bwrap'] });

beforeAll(() => buildCli(), 60_000);

/** Every process's environment and command line as the command sees them, the parent's named on its own; into a file of the workspace, unredacted. */
const READ_EVERY_PROCESS = 'cat /proc/*/environ /proc/*/cmdline /proc/$PPID/environ > seen.txt 2>/dev/null; tr "\\0" "\\n" < seen.txt | grep -ac "^PATH=" > environments.txt';

const bashScript = (command: string, extra: Partial<ScriptFile> = {}): ScriptFile => ({
  prompt: 'Run it.',
  tools: ['bash'],
  approval: { allow: ['bash'] },
  turns: [{ toolCalls: [{ name: 'bash', input: { command } }] }, { text: 'Done.' }],
  ...extra,
});

function toolOutput(result: { messages: Array<{ role: string; content: Array<{ output?: { value?: string } }> }> }): string {
  return result.messages.find((message) => message.role === 'tool')!.content[0]!.output!.value!;
}

describe.skipIf(bwrap === undefined)('loopchart run in bubblewrap', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('bash finds the API key in no process environment or command line, its parent\'s included', async () => {
    const cwd = await tempDir();
    const script = await writeScript(cwd, 'peek.json', bashScript(READ_EVERY_PROCESS));

    const { code, stdout } = await runCli(['run', script, '--cwd', cwd, '--json', '--api-key-env', 'WORK_KEY'], {
      env: cleanEnv({ OPENAI_API_KEY: KEY, WORK_KEY: `${KEY}-work` }),
    });

    expect(code).toBe(0);
    // It did read environments (bwrap's and bash's own), and none holds a key.
    expect(Number(await readFile(path.join(cwd, 'environments.txt'), 'utf8'))).toBeGreaterThan(0);
    expect(await readFile(path.join(cwd, 'seen.txt'), 'utf8')).not.toContain(KEY);
    expect(JSON.parse(stdout).sandbox).toEqual({ kind: 'bubblewrap', network: false });
  });

  it('a stdio MCP server started by the CLI finds the API key in no process either', async () => {
    const cwd = await tempDir();
    const script = await writeScript(cwd, 'mcp.json', { prompt: 'Hi.', tools: ['read'], turns: [{ text: 'Hi.' }] });
    // A "server" that only looks around and exits: the run then fails to connect it, which is beside the point.
    const config = path.join(cwd, 'servers.json');
    await writeFile(config, JSON.stringify({ mcpServers: { peek: { command: 'bash', args: ['-c', READ_EVERY_PROCESS], cwd } } }));

    const { code } = await runCli(['run', script, '--cwd', cwd, '--mcp', config], { env: cleanEnv({ OPENAI_API_KEY: KEY }) });

    expect(code).toBe(1);
    expect(Number(await readFile(path.join(cwd, 'environments.txt'), 'utf8'))).toBeGreaterThan(0);
    expect(await readFile(path.join(cwd, 'seen.txt'), 'utf8')).not.toContain(KEY);
  });

  it('bash has no network unless --allow-network or the script\'s allowNetwork', async () => {
    const cwd = await tempDir();
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    const closed = await writeScript(cwd, 'closed.json', bashScript(connect));
    const open = await writeScript(cwd, 'open.json', bashScript(connect, { allowNetwork: true }));

    const refused = await runCli(['run', closed, '--cwd', cwd, '--json']);
    const byFlag = await runCli(['run', closed, '--cwd', cwd, '--json', '--allow-network']);
    const byScript = await runCli(['run', open, '--cwd', cwd, '--json']);

    expect(toolOutput(JSON.parse(refused.stdout))).toContain('Connection refused');
    for (const run of [byFlag, byScript]) {
      expect(JSON.parse(run.stdout).sandbox).toEqual({ kind: 'bubblewrap', network: true });
      expect(toolOutput(JSON.parse(run.stdout))).toContain('hello from the host');
    }
  });

  it('bash writes the workspace and not beside it', async () => {
    const base = await tempDir();
    const cwd = path.join(base, 'ws');
    await mkdir(cwd);
    const script = await writeScript(base, 'write.json', bashScript(`echo in > inside.txt; echo out > ${base}/outside.txt`));

    const { code } = await runCli(['run', script, '--cwd', cwd, '--json']);

    expect(code).toBe(0);
    expect(await readFile(path.join(cwd, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(path.join(base, 'outside.txt'))).toBe(false);
  });
});

describe('loopchart run where no sandbox is available', () => {
  /** A PATH with bash and nothing else: no bwrap on it. */
  async function pathWithoutBwrap(): Promise<string> {
    const dir = await tempDir('loopchart-path-');
    await symlink(findBinary({ name: 'bash', paths: ['/bin/bash', '/usr/bin/bash'] })!, path.join(dir, 'bash'));
    return dir;
  }

  it('refuses bash for a real model unless --no-sandbox, saying why and what to do', async () => {
    const env = cleanEnv({ PATH: await pathWithoutBwrap(), OPENAI_API_KEY: KEY });
    const { code, stdout, stderr } = await runCli(['run', 'List the files.', '--model', 'openai:gpt-test', '--base-url', 'http://127.0.0.1:9/v1', '--tools', 'bash', '--cwd', await tempDir()], { env });

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('bash needs a sandbox when a real model runs it, and there is none here: bubblewrap (bwrap) is not installed');
    expect(stderr).toContain('give --no-sandbox to let bash run unconfined');
  });

  it('runs a script\'s own bash turns unconfined, saying so once on stderr and in --json', async () => {
    const cwd = await tempDir();
    const script = await writeScript(cwd, 'plain.json', bashScript('echo ran'));

    const { code, stdout, stderr } = await runCli(['run', script, '--cwd', cwd, '--json'], { env: cleanEnv({ PATH: await pathWithoutBwrap() }) });

    expect(code).toBe(0);
    expect(stderr.match(/sandbox: none available/g)).toHaveLength(1);
    expect(stderr).toContain('bash and stdio MCP servers run with your rights, unconfined');
    const result = JSON.parse(stdout);
    expect(result.sandbox).toEqual({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)' });
    expect(toolOutput(result)).toBe('ran\n\nexit code 0');
  });

  it('--no-sandbox runs bash unconfined knowingly, and says so', async () => {
    const cwd = await tempDir();
    const script = await writeScript(cwd, 'plain.json', bashScript('echo ran'));

    const { code, stdout, stderr } = await runCli(['run', script, '--cwd', cwd, '--json', '--no-sandbox']);

    expect(code).toBe(0);
    expect(stderr).toContain('sandbox: off (--no-sandbox)');
    expect(JSON.parse(stdout).sandbox).toEqual({ kind: 'none', reason: '--no-sandbox' });
  });

  it('a run without bash or MCP servers says nothing of a sandbox', async () => {
    const cwd = await tempDir();
    const script = await writeScript(cwd, 'read.json', { prompt: 'Hi.', tools: ['read'], turns: [{ text: 'Hi.' }] });

    const { code, stdout, stderr } = await runCli(['run', script, '--cwd', cwd, '--json'], { env: cleanEnv({ PATH: await pathWithoutBwrap() }) });

    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).not.toHaveProperty('sandbox');
  });
});
