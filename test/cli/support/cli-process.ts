/**
 * Runs the built CLI (`node dist/cli.js`) as a child process. `buildCli()`
 * compiles `src` with tsconfig.build.json when dist/cli.js is missing or older
 * than any source file; test files running in parallel share one build
 * through a lock directory.
 */
import { afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
export const CLI = path.join(ROOT, 'dist/cli.js');
const LOCK = path.join(os.tmpdir(), `loopchart-cli-build-${Buffer.from(ROOT).toString('base64url')}.lock`);
const STALE_LOCK_MS = 120_000;

function newestSourceMtime(dir = path.join(ROOT, 'src')): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function builtIsFresh(): boolean {
  try {
    return statSync(CLI).mtimeMs >= Math.max(newestSourceMtime(), statSync(path.join(ROOT, 'tsconfig.build.json')).mtimeMs);
  } catch {
    return false;
  }
}

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // the builder released it meanwhile
    }
    return false;
  }
}

/** Builds dist/ unless it is up to date. Type errors elsewhere in src do not stop it: tsc still emits. */
export async function buildCli(): Promise<void> {
  for (;;) {
    if (builtIsFresh()) return;
    if (tryLock()) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    if (builtIsFresh()) return;
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    // The CLI under test is exactly what the build produces: a build with errors is a failure, not a warning.
    if (tsc.status !== 0) throw new Error(`tsc failed (${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Where no config file is: the caller's own ~/.config/loopchart/config.json must not change a test. */
const NO_CONFIG_HOME = path.join(os.tmpdir(), 'loopchart-tests-have-no-config-home');

/** An environment without the caller's API keys, base URL, colour settings, default model, session directory or config file. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'NO_COLOR', 'FORCE_COLOR', 'LOOPCHART_MODEL', 'LOOPCHART_SESSION_DIR']) delete env[name];
  return { ...env, XDG_CONFIG_HOME: NO_CONFIG_HOME, ...extra };
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * The child is killed after this long. By default it runs until it exits, or until the test
   * file ends: a loaded machine may take long to start Node, so no fixed bound kills it.
   */
  timeoutMs?: number;
  /** Written to the child's stdin before it is closed. */
  stdin?: string;
}

/** A running CLI child process, for tests that signal it while it runs. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** Output so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when the process has exited and its output is complete. */
  done: Promise<CliRun>;
}

/** Children still running when the test file ends (a test that failed or timed out): killed. Per file, as tests may run concurrently. */
const running = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

export function startCli(args: readonly string[], { env = cleanEnv(), cwd = ROOT, timeoutMs, stdin }: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: 'pipe' });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
  };
}

/** Runs the CLI to the end. */
export function runCli(args: readonly string[], options?: CliOptions): Promise<CliRun> {
  return startCli(args, options).done;
}

/** Polls `condition` every 20 ms; rejects after `timeoutMs` (by default, the test's own timeout ends the wait). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = Infinity): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
