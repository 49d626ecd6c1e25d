/**
 * Runs the built CLI in a real pseudo-terminal, through util-linux's `script`
 * (`script -qefc COMMAND /dev/null`): the CLI's stdin, stdout and stderr are
 * the terminal, and what it draws there (colours, the spinner's frames, the
 * approval question) comes back as one stream, raw.
 */
import { spawn } from 'node:child_process';
import { externalBinary } from '../../support/external-binary.js';
import { CLI, cleanEnv, type CliRun } from './cli-process.js';

/** `script`, from util-linux (Debian: bsdutils); undefined (with a notice) when it is missing. */
export const SCRIPT = externalBinary({ name: 'script', debianPackage: 'bsdutils', paths: ['/usr/bin/script'] });

const quoted = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export interface PtyOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Appended to the shell command, e.g. `2>/dev/null` to see stdout alone on the terminal. */
  redirect?: string;
  /** Killed after this long. Default 30000 ms. */
  timeoutMs?: number;
}

/** Runs `node dist/cli.js ARGS` on a terminal to the end; `stdout` is all the terminal showed (`\n` as `\r\n`). */
export function runCliInPty(args: readonly string[], { env = cleanEnv(), cwd, redirect = '', timeoutMs = 30_000 }: PtyOptions = {}): Promise<CliRun> {
  if (SCRIPT === undefined) throw new Error('script (util-linux) is not installed');
  const command = [process.execPath, CLI, ...args].map(quoted).join(' ') + (redirect ? ` ${redirect}` : '');
  // The terminal's size and type, as a user's; the stdin of script itself stays empty (no keys are typed).
  const child = spawn(SCRIPT, ['-qefc', command, '/dev/null'], { env: { TERM: 'xterm-256color', ...env }, ...(cwd ? { cwd } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
