import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/tools/bash.js';
import { bubblewrapArguments } from '../../src/tools/bubblewrap-arguments.js';
import { builtinTools } from '../../src/tools/index.js';
import { sandboxSettings, type SandboxSetting } from '../../src/tools/sandbox-settings.js';
import { sandboxedCommand } from '../../src/tools/sandboxed-command.js';
import { externalBinary } from '../support/external-binary.js';
import { runTool, useTempWorkspace } from './helpers.js';

const bwrap = externalBinary({ name: 'bwrap', debianPackage: 'bubblewrap', paths: ['/usr/bin/bwrap'] });

describe('bubblewrapArguments', () => {
  const base = { workspace: '/tmp/ws', writable: [], network: false, disableUserNamespaces: true };

  it('mounts everything read-only, then a private /tmp, then the workspace and the writable directories read-write over them', () => {
    const args = bubblewrapArguments({ ...base, writable: ['/var/cache/x'] });
    const order = ['--ro-bind', '--tmpfs', '--bind'].map((flag) => args.indexOf(flag));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(args.join(' ')).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind /tmp/ws /tmp/ws --bind /var/cache/x /var/cache/x');
  });

  it('hides other processes, drops every capability and ends with the separator before the command', () => {
    const args = bubblewrapArguments(base);
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-user', '--die-with-parent', '--disable-userns']));
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args.at(-1)).toBe('--');
    expect(args.join(' ')).toContain('--chdir /tmp/ws --');
  });

  it('shows the read-only directories inside the private /tmp, under the workspace\'s read-write bind', () => {
    const args = bubblewrapArguments({ ...base, readOnly: ['/tmp/node22/bin'] }).join(' ');
    expect(args).toContain('--tmpfs /tmp --ro-bind /tmp/node22/bin /tmp/node22/bin --bind /tmp/ws /tmp/ws');
  });

  it('takes the network away unless it is allowed', () => {
    expect(bubblewrapArguments(base)).toContain('--unshare-net');
    expect(bubblewrapArguments({ ...base, network: true })).not.toContain('--unshare-net');
  });

  it.each(['/', '/proc', '/proc/1', '/dev'])('refuses to make %s writable, which would uncover the host\'s /proc or /dev', (directory) => {
    expect(() => bubblewrapArguments({ ...base, workspace: directory })).toThrow(`The sandbox cannot make ${directory} writable`);
    expect(() => bubblewrapArguments({ ...base, writable: [directory] })).toThrow(`The sandbox cannot make ${directory} writable`);
  });

  it('leaves out --disable-userns for a bubblewrap that lacks it', () => {
    expect(bubblewrapArguments({ ...base, disableUserNamespaces: false })).not.toContain('--disable-userns');
  });
});

describe('sandbox settings', () => {
  it('default to bubblewrap where it works, without network', () => {
    expect(sandboxSettings(undefined)).toEqual({ mode: 'auto', network: false, writable: [] });
    expect(sandboxSettings('none')).toEqual({ mode: 'none', network: false, writable: [] });
  });

  it.each<[unknown, string]>([
    ['sometimes', 'Invalid sandbox option: mode: Unknown sandbox mode "sometimes"; use one of auto, bubblewrap, none'],
    [{ mode: 'none', network: true }, "with mode 'none' the command runs unconfined"],
    [{ writable: ['relative/dir'] }, 'writable.0: writable paths must be absolute, got "relative/dir"'],
    [{ netwrok: true }, 'Unrecognized key: "netwrok"'],
    [5, 'Expected a sandbox mode (auto, bubblewrap, none) or { mode, network, writable }'],
  ])('refuse %j with a clear error', (setting, message) => {
    expect(() => sandboxSettings(setting as SandboxSetting)).toThrow(message);
    expect(() => bashTool({ cwd: '/tmp', sandbox: setting as SandboxSetting })).toThrow(message);
  });

  it('are checked by builtinTools too', () => {
    expect(() => builtinTools({ cwd: '/tmp', tools: ['bash'], bash: { sandbox: 'sometimes' as SandboxSetting } })).toThrow(
      'Invalid builtinTools options: bash.sandbox.mode: Unknown sandbox mode "sometimes"',
    );
  });
});

describe('bash without a sandbox', () => {
  const ws = useTempWorkspace();

  it('gets no provider key variable from the environment', async () => {
    const saved = { ...process.env };
    process.env.SANDBOX_TEST_API_KEY = 'sk-sandbox-test-0123456789';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-sandbox-test-0123456789';
    try {
      const output = await runTool(bashTool({ cwd: ws.root, sandbox: 'none' }), { command: 'echo "[$SANDBOX_TEST_API_KEY][$ANTHROPIC_API_KEY][${HOME:+home}]"' });
      expect(output).toBe('[][][home]\n\nexit code 0');
    } finally {
      process.env = saved;
    }
  });

  it('gets no variable that looks like a credential (a token, a password, a URL with one), but for those passEnv names', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { GITHUB_TOKEN: 'ghp_sandboxtest0123', PGPASSWORD: 'hunter22', DATABASE_URL: 'postgres://app:hunter22@db/app', NPM_TOKEN: 'npm_sandboxtest0123', LOOPCHART_PLAIN: 'plain' });
    try {
      const echo = { command: 'echo "[$GITHUB_TOKEN][$PGPASSWORD][$DATABASE_URL][$NPM_TOKEN][$LOOPCHART_PLAIN]"' };
      expect(await runTool(bashTool({ cwd: ws.root, sandbox: 'none' }), echo)).toBe('[][][][][plain]\n\nexit code 0');
      const passing = builtinTools({ cwd: ws.root, tools: ['bash'], bash: { sandbox: 'none', passEnv: ['NPM_TOKEN', 'DATABASE_URL'] } }).bash;
      expect(await runTool(passing, echo)).toBe('[][][postgres://app:hunter22@db/app][npm_sandboxtest0123][plain]\n\nexit code 0');
    } finally {
      process.env = saved;
    }
  });

  it('refuses to pass a provider key, or a name that would not be left out (a misspelt one would pass nothing)', () => {
    expect(() => bashTool({ cwd: ws.root, passEnv: ['ANTHROPIC_API_KEY'] })).toThrow('Invalid bashTool options: passEnv: ANTHROPIC_API_KEY is a provider key, and provider keys never reach a command');
    expect(() => builtinTools({ cwd: ws.root, tools: ['bash'], bash: { passEnv: ['GITHUB_TOKN'] } })).toThrow("Invalid bashTool options: passEnv: GITHUB_TOKN is not left out of a command's environment");
  });

  it("fails with mode 'bubblewrap' when bwrap is not on the PATH, saying so", async () => {
    const emptyDir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-no-bwrap-'));
    const savedPath = process.env.PATH;
    process.env.PATH = emptyDir;
    try {
      await expect(runTool(bashTool({ cwd: ws.root, sandbox: 'bubblewrap' }), { command: 'touch ran' })).rejects.toThrow(
        'The bubblewrap sandbox cannot be used: bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)',
      );
      expect(existsSync(path.join(ws.root, 'ran'))).toBe(false);
    } finally {
      process.env.PATH = savedPath;
      await rm(emptyDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(bwrap === undefined)('bash in bubblewrap', () => {
  const ws = useTempWorkspace();
  const bash = (command: string, sandbox: SandboxSetting = 'bubblewrap') => runTool(bashTool({ cwd: ws.root, sandbox }), { command });

  let server: Server;
  let port: number;
  beforeEach(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('writes inside the workspace', async () => {
    await expect(bash('echo made > made.txt && mkdir -p sub && echo deep > sub/deep.txt')).resolves.toBe('(no output)\n\nexit code 0');
    expect(await readFile(path.join(ws.root, 'sub/deep.txt'), 'utf8')).toBe('deep\n');
  });

  it('cannot write outside the workspace, in the home directory or in /etc', async () => {
    const secret = path.join(ws.outside, 'secret.txt');
    const output = await bash(`echo changed > ${secret}; touch "$HOME/.loopchart-sandbox-probe"; touch /etc/loopchart-sandbox-probe; echo done`);
    // Outside /tmp the file system is read-only; inside it, the private /tmp does not have the host's directories.
    expect(output.match(/Read-only file system|No such file or directory/g)).toHaveLength(3);
    expect(await readFile(secret, 'utf8')).toBe('top secret\n');
    expect(existsSync(path.join(os.homedir(), '.loopchart-sandbox-probe'))).toBe(false);
    expect(existsSync('/etc/loopchart-sandbox-probe')).toBe(false);
  });

  it('writes a directory it is given as writable', async () => {
    await expect(bash(`echo changed > ${ws.outside}/secret.txt && echo ok`, { mode: 'bubblewrap', writable: [ws.outside] })).resolves.toBe('ok\n\nexit code 0');
    expect(await readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('changed\n');
  });

  it('fails naming a writable directory that does not exist', async () => {
    await expect(bash('true', { mode: 'bubblewrap', writable: [path.join(ws.outside, 'missing')] })).rejects.toThrow(
      `The sandbox's writable directory ${path.join(ws.outside, 'missing')} is not an existing directory`,
    );
  });

  it('has a private /tmp: what it writes there is not on the host, and TMPDIR points at it', async () => {
    const name = `loopchart-sandbox-${process.pid}-${Date.now()}`;
    await expect(bash(`echo "$TMPDIR"; echo x > /tmp/${name} && cat /tmp/${name}`)).resolves.toBe('/tmp\nx\n\nexit code 0');
    expect(existsSync(path.join('/tmp', name))).toBe(false);
  });

  it('runs a program that lies in the host\'s /tmp, found on the PATH, yet still sees none of the rest of /tmp', async () => {
    const programs = await mkdtemp('/tmp/loopchart-programs-');
    const secret = path.join(path.dirname(programs), `${path.basename(programs)}-secret`);
    try {
      await writeFile(path.join(programs, 'greet'), '#!/bin/sh\necho "hello from $0"\n', { mode: 0o755 });
      await writeFile(secret, 'not for the sandbox');
      const run = await sandboxedCommand(sandboxSettings('bubblewrap'), { command: 'greet', args: [], workspace: ws.root, env: { PATH: `${programs}:/usr/bin:/bin` } });
      const result = await execFileOutput(run.command, run.args, run.env);
      expect(result).toEqual({ code: 0, stdout: `hello from ${programs}/greet\n` });
      const peek = await sandboxedCommand(sandboxSettings('bubblewrap'), { command: 'sh', args: ['-c', `ls ${programs}; cat ${secret}`], workspace: ws.root, env: { PATH: `${programs}:/usr/bin:/bin` } });
      const seen = await execFileOutput(peek.command, peek.args, peek.env);
      expect(seen.stdout).toBe('greet\n');
      expect(seen.code).not.toBe(0);
    } finally {
      await rm(programs, { recursive: true, force: true });
      await rm(secret, { force: true });
    }
  });

  it('still runs a command when a PATH entry in /tmp is gone (bubblewrap refuses to mount a directory that does not exist)', async () => {
    const gone = path.join('/tmp', `loopchart-gone-${process.pid}-${Date.now()}`);
    const run = await sandboxedCommand(sandboxSettings('bubblewrap'), { command: 'sh', args: ['-c', 'echo ran'], workspace: ws.root, env: { PATH: `${gone}:/usr/bin:/bin` } });
    await expect(execFileOutput(run.command, run.args, run.env)).resolves.toEqual({ code: 0, stdout: 'ran\n' });
  });

  it('cannot reach the network, not even a server on the host loopback', async () => {
    const output = await bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
    expect(output).toContain('Connection refused');
    expect(output).not.toContain('hello from the host');
  });

  it('reaches the network when allowed', async () => {
    await expect(bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, { mode: 'bubblewrap', network: true })).resolves.toBe('hello from the host\n\nexit code 0');
  });

  it('sees no process but its own: not this one, not its parent', async () => {
    const output = await bash(`ls /proc | grep -E '^[0-9]+$' | sort -n | tr '\\n' ' '; echo; test -e /proc/${process.pid} && echo "sees ${process.pid}"; tr '\\0' ' ' < /proc/1/cmdline | cut -c1-60`);
    const [pids, firstCommand] = output.split('\n');
    expect(pids!.trim().split(' ').map(Number).every((pid) => pid < 100)).toBe(true);
    expect(output).not.toContain(`sees ${process.pid}`);
    expect(firstCommand).toMatch(/^\S*bwrap /);
  });

  it('gets no variable that looks like a credential inside the sandbox either', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { GITHUB_TOKEN: 'ghp_sandboxtest0123', REDIS_URL: 'redis://:hunter22@127.0.0.1:6379' });
    try {
      expect(await bash('echo "[$GITHUB_TOKEN][$REDIS_URL][${HOME:+home}]"')).toBe('[][][home]\n\nexit code 0');
    } finally {
      process.env = saved;
    }
  });

  it('cannot get its capabilities back to remount the file system writable', async () => {
    const output = await bash('grep CapEff /proc/self/status; mount -o remount,rw,bind / 2>&1 || echo refused; touch /etc/loopchart-sandbox-probe 2>&1');
    expect(output).toContain('CapEff:\t0000000000000000');
    expect(output).toContain('refused');
    expect(existsSync('/etc/loopchart-sandbox-probe')).toBe(false);
  });
});

/** A command's exit code and stdout, whether it succeeds or not. */
function execFileOutput(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env }, (error, stdout) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout }));
  });
}
