import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { toolInputObject } from './tool-input-schema.js';
import { throwIfAborted } from './abort.js';
import { MAX_TIMER_MS, timerMsSchema } from '../core/max-timer-ms.js';
import { workspaceCwdSchema } from './limit-option.js';
import { parseOptions } from '../core/options-check.js';
import { BASH_MAX_OUTPUT_BYTES, BASH_MAX_OUTPUT_LINES, bashOutputText } from './bash-output.js';
import { sandboxedCommand } from './sandboxed-command.js';
import { sandboxSettings, type SandboxSetting, type SandboxSettings } from './sandbox-settings.js';
import { runShellCommand } from './shell-command.js';
import { realWorkspaceRoot } from './workspace.js';
import { secretList, type SecretList } from '../secrets/secret-list.js';
import { commandEnvironment, passedVariablesProblem } from '../secrets/credential-variables.js';

export { BASH_MAX_OUTPUT_BYTES, BASH_MAX_OUTPUT_LINES } from './bash-output.js';
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The longest a command may be given: a Node timer given more fires at once. */
export const BASH_MAX_TIMEOUT_MS = MAX_TIMER_MS;
/** A command's time limit, as the model and `builtinTools` give it. */
export const bashTimeoutMsSchema = timerMsSchema;
/**
 * `bashTool`'s options: a timer given more than it can wait, or a count that is not one, would end the command at once.
 * The sandbox and the secrets are checked by their own parsers, whose messages name them.
 */
const bashOptionsSchema = z.strictObject({
  cwd: workspaceCwdSchema,
  timeoutMs: timerMsSchema.optional(),
  killGraceMs: z.number().int().nonnegative().max(MAX_TIMER_MS).optional(),
  sandbox: z.unknown().optional(),
  redact: z.unknown().optional(),
  passEnv: z.array(z.string()).optional(),
});

export interface BashToolOptions {
  /** Directory the commands run in (the workspace root). */
  cwd: string;
  /** Default time limit per command. Default 120000 ms. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when a command is stopped. Default 1000 ms. */
  killGraceMs?: number;
  /**
   * Where commands run. Default `'auto'`: in bubblewrap when it works here
   * (the file system read-only but for the workspace and a private `/tmp`,
   * no network, no other process visible), unconfined otherwise. See
   * `SandboxOptions` for `network` and `writable`.
   */
  sandbox?: SandboxSetting;
  /**
   * Secrets (API keys) replaced by `[redacted]` in the output before its tail is cut, so that no
   * piece of one is left at the cut. An `undefined` or empty entry (a variable that is not set) is left out.
   */
  redact?: SecretList;
  /**
   * Variables that look like credentials that the commands get all the same. A command's environment
   * is this process's without the variables that look like credentials: names with KEY, SECRET, TOKEN,
   * PASSWORD, PASSWD, PASSPHRASE or CREDENTIAL in them, and values that are URLs with a password
   * (`DATABASE_URL=postgres://app:pw@db/app`). A provider key is never passed, and a name that would
   * not be left out is refused (a misspelt name would pass nothing). Default: none.
   * @default []
   */
  passEnv?: readonly string[];
}

/** The longest command `bash -c` can be given: Linux's limit on one argument (`MAX_ARG_STRLEN`, 128 KiB with its NUL). */
export const BASH_MAX_COMMAND_BYTES = 128 * 1024 - 1;

const bashInputSchema = toolInputObject('bash', {
  command: z.string().min(1).describe('Shell command, run with bash -c in the workspace root.'),
  timeoutMs: bashTimeoutMsSchema.optional().describe('Time limit for this command in milliseconds.'),
});

export type BashToolInput = z.infer<typeof bashInputSchema>;

/**
 * The `bash` tool: runs a command with `bash -c` in the workspace root and
 * returns the last 2000 lines / 50 KB of its combined stdout and stderr
 * followed by `exit code N`. On timeout or abort the command's whole process
 * group is killed and the call fails with an error saying so. The command's
 * environment has no variable that looks like a credential (`*_API_KEY`,
 * `GITHUB_TOKEN`, `PGPASSWORD`, a `DATABASE_URL` with a password, …) but for
 * those `passEnv` names. With a sandbox
 * (`sandbox`, default `'auto'`: bubblewrap where it works) it can write only
 * the workspace and a private `/tmp`, cannot reach the network, and sees no
 * process but its own; without one it can do anything this process can.
 *
 * @example
 * const bash = bashTool({ cwd: '/tmp/ws', timeoutMs: 30_000, sandbox: { mode: 'bubblewrap', network: true } });
 * await bash.execute({ command: 'npm test' }, { toolCallId: 't1', messages: [], context: {} });
 * // "…\n\nexit code 0"
 */
export function bashTool(options: BashToolOptions): BuiltinTool<BashToolInput> {
  const { cwd, timeoutMs: defaultTimeoutMs = BASH_DEFAULT_TIMEOUT_MS, killGraceMs } = parseOptions('bashTool', bashOptionsSchema, options);
  const secrets = secretList(options.redact, 'bashTool options.redact');
  const sandbox = sandboxSettings(options.sandbox);
  const passEnv = [...(options.passEnv ?? [])];
  const passProblem = passedVariablesProblem(passEnv, process.env);
  if (passProblem !== undefined) throw new Error(`Invalid bashTool options: passEnv: ${passProblem}`);
  return tool({
    description:
      'Run a shell command with bash -c in the workspace root. Returns combined stdout and stderr ' +
      `(last ${BASH_MAX_OUTPUT_LINES} lines / ${BASH_MAX_OUTPUT_BYTES / 1024} KB) and the exit code. ` +
      `Commands are killed after ${defaultTimeoutMs} ms unless timeoutMs is given. stdin is empty; stdout and stderr close when ` +
      "the command ends: redirect a background process's output (cmd > cmd.log 2>&1 &), or it dies when it next writes. " +
      'Environment variables that look like credentials (names with KEY, SECRET, TOKEN or PASSWORD, URLs with a password) are not set.' +
      sandboxNote(sandbox),
    inputSchema: bashInputSchema,
    execute: async ({ command, timeoutMs = defaultTimeoutMs }, { abortSignal }) => {
      throwIfAborted(abortSignal, 'bash');
      if (command.includes('\0')) throw new Error("The command contains a NUL byte, which no shell command can hold; remove it (printf '\\0' prints one)");
      const commandBytes = Buffer.byteLength(command, 'utf8');
      if (commandBytes > BASH_MAX_COMMAND_BYTES) {
        throw new Error(
          `The command is ${commandBytes} bytes; Linux passes at most ${BASH_MAX_COMMAND_BYTES} bytes as one argument (bash -c's command). ` +
            'Write it to a script with the write tool and run that (bash script.sh)',
        );
      }
      const root = await realWorkspaceRoot(cwd);
      const { env } = commandEnvironment(process.env, passEnv);
      const spawnAs = await sandboxedCommand(sandbox, { command: 'bash', args: ['-c', '--', command], workspace: root, env });
      throwIfAborted(abortSignal, 'bash');
      const result = await runShellCommand({
        command,
        cwd: root,
        spawnAs,
        spawnsSandbox: spawnAs.sandbox.kind !== 'none',
        timeoutMs,
        signal: abortSignal,
        outputCapacityBytes: BASH_MAX_OUTPUT_BYTES * 2,
        killGraceMs,
      });
      const output = bashOutputText(result.output, secrets);
      if (result.stoppedBy === 'timeout') {
        throw new Error(`Command timed out after ${timeoutMs} ms; its process group was killed.\n\n${output}`);
      }
      if (result.stoppedBy === 'abort') {
        throw new Error(`Command was aborted; its process group was killed.\n\n${output}`, { cause: abortSignal?.reason });
      }
      const ending = result.exitCode !== null ? `exit code ${result.exitCode}` : `terminated by signal ${result.exitSignal}`;
      return `${output}\n\n${ending}`;
    },
  });
}

/** What the model should expect of the sandbox, which `'auto'` only knows once a command runs. */
function sandboxNote({ mode, network, writable }: SandboxSettings): string {
  if (mode === 'none') return '';
  const limits = `only the workspace${writable.length > 0 ? `, ${writable.join(', ')}` : ''} and a private /tmp are writable${network ? '' : ', there is no network'}`;
  return ` ${mode === 'auto' ? 'It may run in a sandbox: ' : 'It runs in a sandbox: '}${limits}, and background processes end with the command.`;
}
