// `loopchart/tools`: the built-in coding tools (read, write, edit, ls, glob, grep, bash), confined to a workspace.
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { bashTimeoutMsSchema, bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { lsTool } from './ls.js';
import { readTool } from './read.js';
import { sandboxSettingSchema, type SandboxSetting } from './sandbox-settings.js';
import { secretList, type SecretList } from '../secrets/secret-list.js';
import { writeTool } from './write.js';
import { workspaceCwdSchema } from './limit-option.js';
import { parseOptions } from '../core/options-check.js';

export type BuiltinToolName = 'read' | 'write' | 'edit' | 'ls' | 'glob' | 'grep' | 'bash';

export const builtinToolNames: readonly BuiltinToolName[] = ['read', 'write', 'edit', 'ls', 'glob', 'grep', 'bash'];

/** The tools `builtinTools` enables when no list is given: everything except `bash`. */
export const defaultBuiltinToolNames: readonly BuiltinToolName[] = builtinToolNames.filter((name) => name !== 'bash');

export interface BuiltinToolsOptions {
  /** Workspace root. File tools cannot reach outside it; bash runs in it. */
  cwd: string;
  /** Which tools to enable. Default: all but `bash`. */
  tools?: BuiltinToolName[];
  /** Options of the bash tool; refused unless `tools` lists `'bash'` (they would configure no tool). */
  bash?: {
    /** Default time limit per command. Default 120000 ms. */
    timeoutMs?: number;
    /** Where commands run; default `'auto'` (bubblewrap where it works). See `bashTool`. */
    sandbox?: SandboxSetting;
    /** Secrets (API keys) redacted from the output before its tail is cut; an `undefined` or empty entry is left out. */
    redact?: SecretList;
    /** Variables that look like credentials that the commands get all the same; see `bashTool`. Default none. */
    passEnv?: readonly string[];
  };
  /** `grep`, `glob` and `ls` skip what the workspace's `.gitignore` files ignore. Default true. */
  respectGitignore?: boolean;
}

const builtinToolNameSchema = z.enum(builtinToolNames as [BuiltinToolName, ...BuiltinToolName[]], {
  error: (issue) => `Unknown built-in tool '${String(issue.input)}'; available tools: ${builtinToolNames.join(', ')}`,
});

const builtinToolsOptionsSchema = z.strictObject({
  cwd: workspaceCwdSchema,
  tools: z.array(builtinToolNameSchema).optional(),
  bash: z.strictObject({ timeoutMs: bashTimeoutMsSchema.optional(), sandbox: sandboxSettingSchema.optional(), redact: z.unknown().optional(), passEnv: z.array(z.string()).optional() }).optional(),
  respectGitignore: z.boolean().optional(),
}).refine((options) => options.bash === undefined || (options.tools ?? defaultBuiltinToolNames).includes('bash'), {
  // Without this, bash's options were dropped with the tool, and the app believed it had a bash tool with them.
  path: ['bash'],
  message: "options for bash are given, but 'bash' is not in tools (bash is off by default); add 'bash' to tools, or leave the bash options out",
});

/**
 * Creates the built-in tools for a workspace as an AI SDK `ToolSet`, keyed by
 * tool name. Throws when the options are invalid, e.g. an unknown tool name.
 *
 * @example
 * const tools = builtinTools({ cwd: process.cwd() });                          // read, write, edit, ls, glob, grep
 * const withShell = builtinTools({ cwd: '/tmp/ws', tools: ['read', 'bash'], bash: { timeoutMs: 30_000 } });
 */
export function builtinTools(options: BuiltinToolsOptions): ToolSet {
  const { cwd, tools = defaultBuiltinToolNames, bash, respectGitignore = true } = parseOptions('builtinTools', builtinToolsOptionsSchema, options);
  const redact = secretList(bash?.redact, 'builtinTools options.bash.redact');
  const selected = new Set(tools);
  const toolSet: ToolSet = {};
  for (const name of builtinToolNames) {
    if (selected.has(name)) toolSet[name] = createBuiltinTool(name, cwd, { ...bash, redact }, respectGitignore);
  }
  return toolSet;
}

function createBuiltinTool(name: BuiltinToolName, cwd: string, bash: NonNullable<BuiltinToolsOptions['bash']>, respectGitignore: boolean): ToolSet[string] {
  switch (name) {
    case 'read':
      return readTool({ cwd });
    case 'write':
      return writeTool({ cwd });
    case 'edit':
      return editTool({ cwd });
    case 'ls':
      return lsTool({ cwd, respectGitignore });
    case 'glob':
      return globTool({ cwd, respectGitignore });
    case 'grep':
      return grepTool({ cwd, respectGitignore });
    case 'bash':
      return bashTool({ cwd, ...bash });
  }
}

export type { BuiltinTool } from './builtin-tool.js';
export { bashTool, type BashToolInput, type BashToolOptions } from './bash.js';
export { editTool, type EditToolInput, type EditToolOptions } from './edit.js';
export { globTool, type GlobToolInput, type GlobToolOptions } from './glob.js';
export { grepTool, type GrepToolInput, type GrepToolOptions } from './grep.js';
export { lsTool, type LsToolInput, type LsToolOptions } from './ls.js';
export { readTool, type ReadToolInput, type ReadToolOptions } from './read.js';
export { writeTool, type WriteToolInput, type WriteToolOptions } from './write.js';
export { resolveInWorkspace } from './workspace.js';
export { findSandbox, type FoundSandbox } from './find-sandbox.js';
export type { SandboxMode, SandboxOptions, SandboxSetting } from './sandbox-settings.js';
export { truncateHead, truncateTail, type TruncationLimits, type TruncationResult } from './truncate.js';
