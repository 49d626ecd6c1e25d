import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { bashTool } from '../../src/tools/bash.js';
import { builtinTools } from '../../src/tools/index.js';
import type { SandboxMode } from '../../src/tools/sandbox-settings.js';
import { externalBinary } from '../support/external-binary.js';
import { runTool, useTempWorkspace } from './helpers.js';
import { eventually, livePidsMarked, liveSleeps, uniqueSleepSeconds } from '../support/process-marker.js';

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected the promise to reject with an Error');
}

const bwrap = externalBinary({ name: 'bwrap', debianPackage: 'bubblewrap', paths: ['/usr/bin/bwrap'] });

describe('bash tool', () => {
  const ws = useTempWorkspace();
  const bash = (input: object, options: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    runTool(bashTool({ cwd: ws.root, timeoutMs: options.timeoutMs, killGraceMs: 200 }), input, options.signal);

  it('runs the command in the workspace root and returns stdout, stderr and the exit code', async () => {
    const output = await bash({ command: 'pwd; echo to-stderr >&2' });
    expect(output).toBe(`${ws.root}\nto-stderr\n\nexit code 0`);
  });

  it('returns the output of a failing command with its exit code instead of throwing', async () => {
    await expect(bash({ command: 'echo partial; exit 3' })).resolves.toBe('partial\n\nexit code 3');
  });

  it('runs a command that begins with - or + as the command, not as bash options', async () => {
    await expect(bash({ command: '-x' })).resolves.toMatch(/-x: command not found\n\nexit code 127$/);
    await expect(bash({ command: '+x; echo after' })).resolves.toMatch(/\+x: command not found\nafter\n\nexit code 0$/);
  });

  it('refuses a command longer than Linux passes as one argument, saying what to do, instead of a bare spawn E2BIG', async () => {
    await expect(bash({ command: `: ${'a'.repeat(131_069)}` })).resolves.toBe('(no output)\n\nexit code 0');
    await expect(bash({ command: `: ${'a'.repeat(131_070)}` })).rejects.toThrow(
      'The command is 131072 bytes; Linux passes at most 131071 bytes as one argument (bash -c\'s command). Write it to a script with the write tool and run that (bash script.sh)',
    );
  });

  it('says when the output is not valid UTF-8, as read does, instead of changing its bytes in silence', async () => {
    await expect(bash({ command: "printf 'caf\\xe9\\n'" })).resolves.toBe(
      'caf\uFFFD\n\n[the output is not valid UTF-8: the bytes that are not are shown as \uFFFD; writing this text to a file would replace them]\n\nexit code 0',
    );
    await expect(bash({ command: "printf 'caf\\xc3\\xa9\\n'" })).resolves.toBe('café\n\nexit code 0');
  });

  it('says when there is no output', async () => {
    await expect(bash({ command: 'true' })).resolves.toBe('(no output)\n\nexit code 0');
  });

  it('keeps the last 2000 lines and says how much was cut', async () => {
    const output = await bash({ command: 'seq 1 5000' });
    expect(output).toMatch(/^\[output truncated: 3000 lines \(13893 bytes\) omitted before; showing the last 2000 lines\]\n3001\n/);
    expect(output).toMatch(/\n5000\n\nexit code 0$/);
  });

  it('keeps at most 50 KB of a very large output', async () => {
    const output = await bash({ command: 'seq 1 300000' });
    const [marker, ...rest] = output.split('\n');
    expect(marker).toMatch(/^\[output truncated: 298000 lines \(\d+ bytes\) omitted before; showing the last 2000 lines\]$/);
    expect(rest.slice(0, 2)).toEqual(['298001', '298002']);
    expect(Buffer.byteLength(output)).toBeLessThan(50 * 1024 + 200);
  });

  it('keeps the end of one huge line', async () => {
    const output = await bash({ command: "head -c 200000 /dev/zero | tr '\\0' a; echo END" });
    expect(output).toMatch(/^\[output truncated: 0 lines \(\d+ bytes\) omitted before; showing the last 1 line, the first only in part\]\na+END\n\nexit code 0$/);
    expect(Buffer.byteLength(output)).toBeLessThan(50 * 1024 + 200);
  });

  it('refuses a timeoutMs longer than a timer can wait, which would otherwise end the command at once as timed out', () => {
    const schema = bashTool({ cwd: ws.root }).inputSchema as unknown as z.ZodType;
    const result = schema.safeParse({ command: 'sleep 1', timeoutMs: 3_000_000_000 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['timeoutMs'], message: 'at most 2147483647 ms (about 24.8 days), the longest a timer can wait' });
    expect(schema.safeParse({ command: 'sleep 1', timeoutMs: 2 ** 31 - 1 }).success).toBe(true);
    expect(() => bashTool({ cwd: ws.root, timeoutMs: 3_000_000_000 })).toThrow(
      'Invalid bashTool options: timeoutMs: at most 2147483647 ms (about 24.8 days), the longest a timer can wait',
    );
    expect(() => bashTool({ cwd: ws.root, timeoutMs: 0 })).toThrow('Invalid bashTool options: timeoutMs: Too small: expected number to be >0');
    expect(() => bashTool({ cwd: ws.root, killGraceMs: Number.NaN })).toThrow('Invalid bashTool options: killGraceMs: Invalid input: expected number, received NaN');
    expect(() => builtinTools({ cwd: ws.root, tools: ['bash'], bash: { timeoutMs: 3_000_000_000 } })).toThrow(
      'Invalid builtinTools options: bash.timeoutMs: at most 2147483647 ms',
    );
  });

  it('refuses a command with a NUL byte, which no argument can hold, naming the problem rather than an argument index', async () => {
    await expect(bash({ command: 'echo a\0b' })).rejects.toThrow(
      "The command contains a NUL byte, which no shell command can hold; remove it (printf '\\0' prints one)",
    );
  });

  it('does not start the command when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(bash({ command: 'touch ran' }, { signal: controller.signal })).rejects.toThrow('bash was aborted');
    expect(existsSync(path.join(ws.root, 'ran'))).toBe(false);
  });
});

const modes: Array<{ name: string; mode: SandboxMode; skip: boolean }> = [
  { name: 'unconfined', mode: 'none', skip: false },
  { name: 'in bubblewrap', mode: 'bubblewrap', skip: bwrap === undefined },
];

describe.each(modes)('bash tool, $name: the process tree', ({ mode, skip }) => {
  const ws = useTempWorkspace();
  const bash = (input: object, options: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    runTool(bashTool({ cwd: ws.root, timeoutMs: options.timeoutMs, killGraceMs: 200, sandbox: mode }), input, options.signal);

  it.skipIf(skip)('kills the whole process tree on timeout and fails saying so', async () => {
    const marker = uniqueSleepSeconds();
    const error = await errorOf(bash({ command: `sleep ${marker} & sleep ${marker}`, timeoutMs: 150 }));
    expect(error.message).toMatch(/^Command timed out after 150 ms; its process group was killed/);
    await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
  });

  it.skipIf(skip)('lets timeoutMs in the input override the default', async () => {
    await expect(bash({ command: 'sleep 5', timeoutMs: 100 }, { timeoutMs: 60_000 })).rejects.toThrow(/timed out after 100 ms/);
  });

  it.skipIf(skip)('kills the whole process tree on abort and fails saying so', async () => {
    const marker = uniqueSleepSeconds();
    const controller = new AbortController();
    const pending = errorOf(bash({ command: `(sleep ${marker} & sleep ${marker}) & wait` }, { signal: controller.signal }));
    // Abort only once both sleeps (in a subshell, a grandchild) have started, however slow the machine is.
    const sleeps = () => liveSleeps(marker).length;
    await expect(eventually(() => sleeps() === 2)).resolves.toBe(true);
    controller.abort();
    const error = await pending;
    expect(error.message).toMatch(/^Command was aborted; its process group was killed/);
    await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
  });

  it.skipIf(skip)('gives the command its grace period between SIGTERM and SIGKILL', async () => {
    const controller = new AbortController();
    const pending = errorOf(
      runTool(
        bashTool({ cwd: ws.root, killGraceMs: 10_000, sandbox: mode }),
        { command: 'trap "echo cleaning up; sleep 0.2; echo cleaned up; exit 0" TERM; touch trapped; sleep 300 & wait' },
        controller.signal,
      ),
    );
    // Stop it only once the trap is set, however slow the machine is.
    await expect(eventually(() => existsSync(path.join(ws.root, 'trapped')))).resolves.toBe(true);
    controller.abort();
    const error = await pending;
    expect(error.message).toMatch(/^Command was aborted/);
    expect(error.message).toContain('cleaning up\ncleaned up');
  });

  it.skipIf(skip)('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const marker = uniqueSleepSeconds();
    const error = await errorOf(bash({ command: `trap "" TERM; sleep ${marker} & wait`, timeoutMs: 200 }));
    expect(error.message).toMatch(/timed out/);
    await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
  });

  it.skipIf(skip)('returns when the command exits even if a background child keeps the output open', async () => {
    const marker = uniqueSleepSeconds();
    const output = await bash({ command: `sleep ${marker} & echo started` });
    expect(output).toBe('started\n\nexit code 0');
    if (mode === 'none') {
      // Unconfined, the child is left running.
      const pids = liveSleeps(marker);
      expect(pids).toHaveLength(1);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
    } else {
      // In the sandbox's PID namespace, it ends with the command.
      await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
    }
  });
});

describe('bash tool, unconfined: a background process after the command returned', () => {
  const ws = useTempWorkspace();
  const bash = (command: string) => runTool(bashTool({ cwd: ws.root, sandbox: 'none' }), { command });

  it('dies of SIGPIPE when it writes to its output again, unless the output was redirected, as the description tells the model', async () => {
    const description = bashTool({ cwd: ws.root, sandbox: 'none' }).description;
    expect(description).toContain('stdout and stderr close when the command ends: redirect a background process\'s output (cmd > cmd.log 2>&1 &)');
    const output = await bash('(sleep 0.3; echo late; touch wrote-late) & (sleep 0.6; touch redirected-ran-later) > /dev/null 2>&1 & echo now');
    expect(output).toBe('now\n\nexit code 0');
    // The redirected one goes on: once it has run, the other would have run before it, had it lived.
    await expect(eventually(() => existsSync(path.join(ws.root, 'redirected-ran-later')))).resolves.toBe(true);
    expect(existsSync(path.join(ws.root, 'wrote-late'))).toBe(false);
  });
});

describe.skipIf(bwrap === undefined)('bash tool, in bubblewrap: processes that leave the process group', () => {
  const ws = useTempWorkspace();
  const bash = (input: object) => runTool(bashTool({ cwd: ws.root, killGraceMs: 200, sandbox: 'bubblewrap' }), input);

  it.each([
    ['setsid', (marker: string) => `setsid sleep ${marker} >/dev/null 2>&1 &`],
    ['a double fork', (marker: string) => `( ( sleep ${marker} >/dev/null 2>&1 & ) & );`],
  ])('end with the command, even %s (which unconfined would outlive it)', async (_name, start) => {
    const [marker, timedOut] = [uniqueSleepSeconds(), uniqueSleepSeconds()];
    try {
      await expect(bash({ command: `${start(marker)} echo started` })).resolves.toBe('started\n\nexit code 0');
      await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
      await expect(bash({ command: `${start(timedOut)} sleep ${timedOut}`, timeoutMs: 300 })).rejects.toThrow(/timed out/);
      await expect(eventually(() => livePidsMarked(timedOut).length === 0)).resolves.toBe(true);
    } finally {
      for (const pid of [...livePidsMarked(marker), ...livePidsMarked(timedOut)]) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('bash tool, unconfined: when this process ends', () => {
  const ws = useTempWorkspace();
  const fixture = path.join(import.meta.dirname, '../fixtures/tools/bash-then-exit.ts');

  it.each(['exit', 'throw'])('kills a command still running when the process ends (%s), instead of leaving it behind', async (how) => {
    const marker = uniqueSleepSeconds();
    try {
      await new Promise<void>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', fixture, ws.root, marker, how], { timeout: 30_000 }, () => resolve());
      });
      expect(existsSync(path.join(ws.root, 'started'))).toBe(true);
      await expect(eventually(() => livePidsMarked(marker).length === 0)).resolves.toBe(true);
    } finally {
      for (const pid of livePidsMarked(marker)) process.kill(pid, 'SIGKILL');
    }
  });
});
