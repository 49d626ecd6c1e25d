import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashTool } from '../../src/tools/bash.js';
import { runTool, useTempWorkspace } from './helpers.js';

/** A pid is gone once signalling it fails; a zombie (dead, not yet reaped by init) is gone too. */
function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const statFile = `/proc/${pid}/stat`;
  if (!existsSync(statFile)) return false;
  const stat = readFileSync(statFile, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

async function waitUntilGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (processIsGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return processIsGone(pid);
}

function pidsIn(text: string): number[] {
  return [...text.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]));
}

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected the promise to reject with an Error');
}

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

  it('kills the whole process tree on timeout and fails saying so', async () => {
    const started = Date.now();
    const error = await errorOf(bash({ command: 'sleep 30 & echo "pid=$!"; sleep 30', timeoutMs: 150 }));
    expect(error.message).toMatch(/^Command timed out after 150 ms; its process group was killed/);
    expect(Date.now() - started).toBeLessThan(3000);
    const [backgroundPid] = pidsIn(error.message);
    expect(backgroundPid).toBeGreaterThan(0);
    await expect(waitUntilGone(backgroundPid!)).resolves.toBe(true);
  });

  it('lets timeoutMs in the input override the default', async () => {
    await expect(bash({ command: 'sleep 5', timeoutMs: 100 }, { timeoutMs: 60_000 })).rejects.toThrow(/timed out after 100 ms/);
  });

  it('kills the whole process tree on abort and fails saying so', async () => {
    const controller = new AbortController();
    const pending = errorOf(
      bash(
        { command: '(sleep 30 & echo "pid=$!" | tee -a started; sleep 30) & echo "pid=$!" | tee -a started; wait' },
        { signal: controller.signal },
      ),
    );
    // Abort only once both background processes have started, however slow the machine is.
    const started = path.join(ws.root, 'started');
    for (let i = 0; i < 3_000 && (!existsSync(started) || readFileSync(started, 'utf8').trim().split('\n').length < 2); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    const error = await pending;
    expect(error.message).toMatch(/^Command was aborted; its process group was killed/);
    const pids = pidsIn(error.message);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expect(waitUntilGone(pid)).resolves.toBe(true);
  });

  it('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const error = await errorOf(bash({ command: 'trap "" TERM; echo "pid=$$"; sleep 30 & wait', timeoutMs: 200 }));
    expect(error.message).toMatch(/timed out/);
    const [shellPid] = pidsIn(error.message);
    await expect(waitUntilGone(shellPid!)).resolves.toBe(true);
  });

  it('does not start the command when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(bash({ command: 'touch ran' }, { signal: controller.signal })).rejects.toThrow('bash was aborted');
    expect(existsSync(path.join(ws.root, 'ran'))).toBe(false);
  });

  it('returns when the command exits even if a background child keeps the output open', async () => {
    const started = Date.now();
    const output = await bash({ command: 'sleep 5 & echo "pid=$!"' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(output).toMatch(/exit code 0$/);
    for (const pid of pidsIn(output)) process.kill(pid, 'SIGKILL');
  });
});
