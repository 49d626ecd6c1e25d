/**
 * Runs a `bash -c` command (or the sandbox wrapping it) in its own process
 * group, collecting the tail of its interleaved stdout and stderr, and kills
 * the whole group on timeout or abort.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { OutputTail, type OutputTailSnapshot } from './output-tail.js';
import { killGroupOnExit, killProcessGroup } from './process-group.js';

/** How long to keep reading output after bash exited, in case a background child still holds the pipes. */
const DRAIN_AFTER_EXIT_MS = 100;

export interface ShellCommandOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of the most recent output to keep in memory. */
  outputCapacityBytes: number;
  /** Time between SIGTERM and SIGKILL when the command is stopped. Default 1000. */
  killGraceMs?: number;
  /** What to spawn instead of `bash -c command` with this process's environment: the same command inside a sandbox (`sandboxedCommand`). */
  spawnAs?: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv };
  /** What is spawned is a sandbox (`bwrap`) holding the command: on stop, it gets no SIGTERM, only the final SIGKILL, so that the command has its grace period. */
  spawnsSandbox?: boolean;
}

export interface ShellCommandResult {
  output: OutputTailSnapshot;
  /** Exit code, or `null` when the command ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the command, if any. */
  exitSignal: NodeJS.Signals | null;
  /** Set when the command was stopped by us rather than ending by itself. */
  stoppedBy: 'timeout' | 'abort' | null;
}

/**
 * Runs `command` with `bash -c` in `cwd`. Never rejects because of what the
 * command does (non-zero exit, timeout, abort are all in the result); rejects
 * only when bash cannot be started.
 *
 * @example
 * const result = await runShellCommand({ command: 'ls', cwd: '/tmp/ws', timeoutMs: 5000, outputCapacityBytes: 100_000 });
 * result.exitCode; // 0
 */
export function runShellCommand(options: ShellCommandOptions): Promise<ShellCommandResult> {
  const { command, cwd, timeoutMs, signal, outputCapacityBytes, killGraceMs = 1000, spawnAs, spawnsSandbox = false } = options;
  const output = new OutputTail(outputCapacityBytes);

  const couldNotStart = (error: unknown) =>
    new Error(`Could not start ${spawnAs?.command ?? 'bash'} in ${cwd}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

  return new Promise((resolve, reject) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      // `--`: a command that begins with - or + is the command, not bash's options.
      child = spawnAs
        ? spawn(spawnAs.command, spawnAs.args, { cwd, env: spawnAs.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn('bash', ['-c', '--', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      // spawn throws at once for what the kernel refuses outright (E2BIG: arguments too long).
      reject(couldNotStart(error));
      return;
    }
    // Detached, the command would outlive this process: killed with it if it is still running then.
    const forgetOnExit = child.pid === undefined ? () => undefined : killGroupOnExit(child.pid);
    child.stdout.on('data', (chunk: Buffer) => output.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.append(chunk));

    let stoppedBy: ShellCommandResult['stoppedBy'] = null;
    let killing: Promise<void> | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const stop = (reason: 'timeout' | 'abort'): void => {
      if (stoppedBy !== null || exit !== undefined || child.pid === undefined) return;
      stoppedBy = reason;
      killing = killProcessGroup(child.pid, killGraceMs, { spareLeaderFromSigterm: spawnsSandbox }).catch(() => undefined);
    };
    const onAbort = (): void => stop('abort');
    const timeoutTimer = setTimeout(() => stop('timeout'), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    const cleanUp = (): void => {
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      signal?.removeEventListener('abort', onAbort);
    };

    const finish = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      cleanUp();
      child.stdout.destroy();
      child.stderr.destroy();
      const { code, signal: exitSignal } = exit;
      void (killing ?? Promise.resolve()).then(() => {
        forgetOnExit();
        resolve({ output: output.snapshot(), exitCode: code, exitSignal, stoppedBy });
      });
    };

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanUp();
      forgetOnExit();
      reject(couldNotStart(error));
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      drainTimer = setTimeout(finish, DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', finish);

    if (signal?.aborted) stop('abort');
  });
}
