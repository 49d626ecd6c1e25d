import { tool } from 'ai';
import { z } from 'zod';
import type { BuiltinTool } from './builtin-tool.js';
import { throwIfAborted } from './abort.js';
import { BASH_MAX_OUTPUT_BYTES, BASH_MAX_OUTPUT_LINES, bashOutputText } from './bash-output.js';
import { runShellCommand } from './shell-command.js';
import { realWorkspaceRoot } from './workspace.js';

export { BASH_MAX_OUTPUT_BYTES, BASH_MAX_OUTPUT_LINES } from './bash-output.js';
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;

export interface BashToolOptions {
  /** Directory the commands run in (the workspace root). */
  cwd: string;
  /** Default time limit per command. Default 120000 ms. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when a command is stopped. Default 1000 ms. */
  killGraceMs?: number;
  /** Secrets (API keys) replaced by `[redacted]` in the output before its tail is cut, so that no piece of one is left at the cut. */
  redact?: readonly string[];
}

const bashInputSchema = z.object({
  command: z.string().min(1).describe('Shell command, run with bash -c in the workspace root.'),
  timeoutMs: z.number().int().positive().optional().describe('Time limit for this command in milliseconds.'),
});

export type BashToolInput = z.infer<typeof bashInputSchema>;

/**
 * The `bash` tool: runs a command with `bash -c` in the workspace root and
 * returns the last 2000 lines / 50 KB of its combined stdout and stderr
 * followed by `exit code N`. On timeout or abort the command's whole process
 * group is killed and the call fails with an error saying so. Not confined
 * to the workspace: enable it only when the model may run arbitrary commands.
 *
 * @example
 * const bash = bashTool({ cwd: '/tmp/ws', timeoutMs: 30_000 });
 * await bash.execute({ command: 'npm test' }, { toolCallId: 't1', messages: [], context: {} });
 * // "…\n\nexit code 0"
 */
export function bashTool(options: BashToolOptions): BuiltinTool<BashToolInput> {
  const { cwd, timeoutMs: defaultTimeoutMs = BASH_DEFAULT_TIMEOUT_MS, killGraceMs, redact: secrets = [] } = options;
  return tool({
    description:
      'Run a shell command with bash -c in the workspace root. Returns combined stdout and stderr ' +
      `(last ${BASH_MAX_OUTPUT_LINES} lines / ${BASH_MAX_OUTPUT_BYTES / 1024} KB) and the exit code. ` +
      `Commands are killed after ${defaultTimeoutMs} ms unless timeoutMs is given. stdin is empty.`,
    inputSchema: bashInputSchema,
    execute: async ({ command, timeoutMs = defaultTimeoutMs }, { abortSignal }) => {
      throwIfAborted(abortSignal, 'bash');
      const result = await runShellCommand({
        command,
        cwd: await realWorkspaceRoot(cwd),
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
