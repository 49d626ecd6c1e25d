/**
 * A command line rewritten to run inside the sandbox a setting asks for,
 * with an environment that holds no provider key.
 */
import { realpath, stat } from 'node:fs/promises';
import { withoutProviderKeys } from '../secrets/provider-key-variables.js';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { findSandbox, type FoundSandbox } from './find-sandbox.js';
import { programDirectories } from './program-directories.js';
import type { SandboxSettings } from './sandbox-settings.js';

export interface CommandToConfine {
  command: string;
  args: readonly string[];
  /** The directory the command may write (with `settings.writable`); must exist. */
  workspace: string;
  /** The working directory; default the workspace. */
  cwd?: string;
  /** The environment to start from; provider keys are removed from it. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface SandboxedCommand {
  /** The program to spawn (`bwrap`, or the command itself without a sandbox). */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The sandbox it runs in; `kind: 'none'` when unconfined. */
  sandbox: FoundSandbox;
}

/**
 * How to spawn `command` under `settings`: inside bubblewrap when the mode is
 * `'bubblewrap'`, or `'auto'` and bubblewrap works here; as it is otherwise.
 * The caller spawns the result with `detached: true` and no terminal.
 *
 * @example
 * const run = await sandboxedCommand({ mode: 'auto', network: false, writable: [] }, { command: 'bash', args: ['-c', 'make'], workspace: '/tmp/ws' });
 * spawn(run.command, run.args, { env: run.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
 * @throws Error when the mode is `'bubblewrap'` and it cannot be used, or a writable directory does not exist.
 */
export async function sandboxedCommand(settings: SandboxSettings, target: CommandToConfine): Promise<SandboxedCommand> {
  const env = withoutProviderKeys(target.env ?? process.env);
  const unconfined = { command: target.command, args: [...target.args], env };
  if (settings.mode === 'none') return { ...unconfined, sandbox: { kind: 'none', reason: "the sandbox mode is 'none'" } };
  const sandbox = await findSandbox();
  if (sandbox.kind === 'none') {
    if (settings.mode === 'bubblewrap') throw new Error(`The bubblewrap sandbox cannot be used: ${sandbox.reason}`);
    return { ...unconfined, sandbox };
  }
  const workspace = await existingDirectory(target.workspace, 'workspace');
  const writable = await Promise.all(settings.writable.map((directory) => existingDirectory(directory, 'writable directory')));
  const cwd = target.cwd !== undefined ? await existingDirectory(target.cwd, 'working directory') : workspace;
  const readOnly = await existingDirectories(programDirectories(target.command, env.PATH, cwd));
  const args = bubblewrapArguments({ workspace, writable, readOnly, network: settings.network, disableUserNamespaces: sandbox.disableUserNamespaces, cwd });
  return { command: sandbox.path, args: [...args, target.command, ...target.args], env, sandbox };
}

/** The directories of `candidates` that exist (bubblewrap refuses to bind one that does not). */
async function existingDirectories(candidates: readonly string[]): Promise<string[]> {
  const found = await Promise.all(candidates.map(async (directory) => ((await stat(directory).catch(() => undefined))?.isDirectory() ? directory : undefined)));
  return found.filter((directory): directory is string => directory !== undefined);
}

/** The real path of a directory that must exist, since bubblewrap binds it. */
async function existingDirectory(directory: string, what: string): Promise<string> {
  const real = await realpath(directory).catch(() => undefined);
  if (real === undefined || !(await stat(real)).isDirectory()) throw new Error(`The sandbox's ${what} ${directory} is not an existing directory`);
  return real;
}
