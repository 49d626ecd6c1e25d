#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { terminalAsker } from './cli/approval-prompt.js';
import { parseCommandLine, type RunArguments } from './cli/args.js';
import type { OpenArguments } from './cli/open-command.js';
import { chartCommand } from './cli/chart-command.js';
import { configCommand } from './cli/config-command.js';
import { loadCliConfig, type LoadedConfig } from './cli/config-files.js';
import { USAGE_ERROR, exitCodeBySignal } from './cli/exit-codes.js';
import { helpText } from './cli/help.js';
import { onInterrupt, type StopReason } from './cli/interrupt.js';
import { colorAllowed } from './cli/palette.js';
import { openCommand } from './cli/open-command.js';
import { reportCommand } from './cli/report-command.js';
import { runCommand, type RunCommandOptions } from './cli/run-command.js';
import { forkCommand } from './cli/fork-command.js';
import { scriptCommand } from './cli/script-command.js';
import { runTarget } from './cli/run-target.js';
import { UsageError } from './cli/usage-error.js';

async function main(argv: string[]): Promise<number> {
  let command;
  try {
    command = parseCommandLine(argv, {
      stdinIsPiped: process.stdin.isTTY !== true,
      ...(process.env.LOOPCHART_SESSION_DIR !== undefined ? { sessionDirFromEnv: process.env.LOOPCHART_SESSION_DIR } : {}),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const topic = ['run', 'report', 'chart', 'config', 'fork', 'script', 'open'].includes(argv[0] ?? '') ? `loopchart ${argv[0]} --help` : 'loopchart --help';
    process.stderr.write(`loopchart: ${error.message}\nRun ${topic} for usage.\n`);
    return USAGE_ERROR;
  }
  switch (command.name) {
    case 'help':
      process.stdout.write(`${helpText(command.topic)}\n`);
      return 0;
    case 'version':
      process.stdout.write(`loopchart ${packageVersion()}\n`);
      return 0;
    case 'chart':
      return chartCommand(process.stdout);
    case 'config': {
      const loaded = await loadConfig(command.args.cwd ?? process.cwd(), 'config');
      return typeof loaded === 'number' ? loaded : configCommand(loaded, { json: command.args.json, stdout: process.stdout });
    }
    case 'run':
      return run(command.args);
    case 'report':
      return reportCommand({ ...command.args, stdout: process.stdout, stderr: process.stderr });
    case 'fork': {
      const { args } = command;
      return forkCommand({
        args,
        env: process.env,
        stdout: process.stdout,
        stderr: process.stderr,
        runOn: (fork) =>
          run(args.run!, {
            resume: fork.sessionId,
            ...(fork.prompt !== undefined ? { prompt: fork.prompt } : {}),
            ...('dir' in args.place ? { session: args.place.dir } : { sessionStore: { store: fork.store, where: fork.where } }),
          }),
      });
    }
    case 'script':
      return scriptCommand({ args: command.args, env: process.env, stdout: process.stdout, stderr: process.stderr });
    case 'open':
      return open(command.args);
  }
}

/** `loopchart open` wired to this process: it serves until Ctrl+C (or SIGTERM, or SIGHUP: its terminal closed). */
async function open(args: OpenArguments): Promise<number> {
  let stop = () => {};
  const interrupted = new Promise<void>((resolve) => (stop = resolve));
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.once(signal, stop);
  try {
    return await openCommand({ args, env: process.env, stderr: process.stderr, interrupted });
  } finally {
    for (const signal of signals) process.off(signal, stop);
  }
}

/** The config in force in `workspace`, or the exit code of a usage error (said on stderr). */
async function loadConfig(workspace: string, command: string): Promise<LoadedConfig | number> {
  try {
    return await loadCliConfig({ workspace, env: process.env });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`loopchart: ${error.message}\nRun loopchart ${command} --help for usage.\n`);
    return USAGE_ERROR;
  }
}

/** The installed package's version (package.json sits beside src/ and dist/). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** What `loopchart fork --prompt` sets of the run on: the fork to resume, where it is, and the prompt (never a script file). */
type RunOnFork = { resume: string; prompt?: string } & Pick<RunCommandOptions, 'session' | 'sessionStore'>;

/** `loopchart run` wired to this process: its streams, environment, terminal, Ctrl+C and SIGTERM. */
async function run(args: RunArguments, fork?: RunOnFork): Promise<number> {
  let target: Awaited<ReturnType<typeof runTarget>> | undefined;
  if (fork) {
    target = fork.prompt !== undefined ? { kind: 'prompt', text: fork.prompt } : undefined;
  } else if (args.target === '-') {
    const text = (await readAll(process.stdin)).trim();
    if (text === '') {
      process.stderr.write('loopchart: the prompt on stdin is empty\nRun loopchart run --help for usage.\n');
      return USAGE_ERROR;
    }
    target = { kind: 'prompt', text };
  } else if (args.target !== undefined) {
    target = await runTarget(args.target);
  }
  const loaded = await loadConfig(args.cwd ?? process.cwd(), 'config');
  if (typeof loaded === 'number') return loaded;
  const color = colorAllowed({ isTTY: process.stderr.isTTY === true, noColorFlag: args.noColor, env: process.env });
  let stopListening = () => {};
  // SIGTERM (timeout, docker stop, a CI cancel) and SIGHUP (a closed terminal) as Ctrl+C: the run is
  // aborted and cleaned up (MCP servers, a temporary workspace), not killed. So is a closed output.
  const interrupted = new Promise<StopReason>((resolve) => {
    stopListening = onInterrupt(process, {
      // runCommand says so, once its spinner is off the line.
      first: (signal) => resolve(signal),
      again: (signal) => process.exit(exitCodeBySignal[signal]),
    });
    stopOnClosedOutput = () => resolve('SIGPIPE');
  });
  // A run that waits on nothing Node tracks (a stalled stream, a pending approval) must not let the process exit early with 0.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  try {
    // Every setting of the command line goes on as it was parsed: a flag added to RunArguments cannot be dropped on the way.
    const { target: _target, output, noColor: _noColor, ...settings } = args;
    return await runCommand({
      ...(target?.kind === 'script' ? { script: target.file } : target?.kind === 'prompt' ? { prompt: target.text } : {}),
      ...settings,
      env: process.env,
      ...(process.stdin.isTTY && process.stderr.isTTY
        ? { askUser: terminalAsker({ input: process.stdin, output: process.stderr, onInterrupt: () => process.kill(process.pid, 'SIGINT') }) }
        : {}),
      json: output === 'json',
      events: output === 'events',
      stdout: process.stdout,
      stdoutIsTerminal: process.stdout.isTTY === true,
      stderr: process.stderr,
      color,
      // Not colour but cursor movement: on a terminal only (FORCE_COLOR into a pipe must not fill a log with frames), NO_COLOR or not.
      spinner: process.stderr.isTTY === true && !args.noColor && process.env.TERM !== 'dumb',
      interrupted,
      config: loaded.config,
      ...(fork ? { resume: fork.resume, ...(fork.session !== undefined ? { session: fork.session } : {}), ...(fork.sessionStore ? { sessionStore: fork.sessionStore } : {}) } : {}),
    });
  } finally {
    clearInterval(keepAlive);
    stopListening();
    stopOnClosedOutput = undefined;
  }
}

/** Exits once everything written to stdout and stderr has been handed to the OS. */
function exit(code: number): void {
  let pending = 2;
  const done = () => --pending === 0 && process.exit(code);
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/** Set while `loopchart run` runs: stops it (as a signal does) when its output is closed. */
let stopOnClosedOutput: (() => void) | undefined;
let outputClosed = false;
/** The errors of a stdout or stderr whose reader went away: `| head -1` (EPIPE), a closed terminal (EIO), a write after either. */
const CLOSED_OUTPUT = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

// A reader that goes away (`loopchart run … --events | head -1`) ends the process quietly, exit 141
// (SIGPIPE's, as a shell reports it); a run is first stopped and cleaned up, as on SIGTERM.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!CLOSED_OUTPUT.has(error.code ?? '')) throw error;
    if (outputClosed) return;
    outputClosed = true;
    if (stopOnClosedOutput) stopOnClosedOutput();
    else process.exit(exitCodeBySignal.SIGPIPE);
  });
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  process.stderr.write(`loopchart: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(1);
});
