/**
 * How a command (a `bash` command, a stdio MCP server) is confined: which
 * sandbox, whether it may reach the network, and which directories besides
 * the workspace it may write.
 */
import path from 'node:path';
import { z } from 'zod';

/**
 * - `'auto'`: bubblewrap when it is installed and works here, else no sandbox;
 * - `'bubblewrap'`: bubblewrap or nothing: a command fails when it cannot be used;
 * - `'none'`: no sandbox; the command runs with this process's rights.
 */
export type SandboxMode = 'auto' | 'bubblewrap' | 'none';

export const sandboxModes: readonly SandboxMode[] = ['auto', 'bubblewrap', 'none'];

export interface SandboxOptions {
  /** Which sandbox. Default `'auto'`. */
  mode?: SandboxMode;
  /** The command may reach the network (its own network namespace otherwise, with only a loopback of its own). Default false. */
  network?: boolean;
  /** Absolute paths of existing directories the command may write besides the workspace and its private `/tmp`. Default none. */
  writable?: string[];
}

/** A mode alone (`'bubblewrap'`), or the options. */
export type SandboxSetting = SandboxMode | SandboxOptions;

/** A setting with every default filled in. */
export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  writable: string[];
}

const modeSchema = z.enum(sandboxModes as [SandboxMode, ...SandboxMode[]], {
  error: (issue) => `Unknown sandbox mode ${JSON.stringify(issue.input)}; use one of ${sandboxModes.join(', ')}`,
});

const optionsSchema = z
  .strictObject({
    mode: modeSchema.optional(),
    network: z.boolean().optional(),
    writable: z.array(z.string().refine((entry) => path.isAbsolute(entry), { error: (issue) => `writable paths must be absolute, got ${JSON.stringify(issue.input)}` })).optional(),
  }, { error: (issue) => (issue.code === 'invalid_type' ? `Expected a sandbox mode (${sandboxModes.join(', ')}) or { mode, network, writable }` : undefined) })
  .refine((options) => options.mode !== 'none' || (options.network === undefined && options.writable === undefined), {
    error: "network and writable confine a sandbox; with mode 'none' the command runs unconfined, so leave them out",
  });

/** The zod schema of a `SandboxSetting` (a mode alone is read as `{ mode }`), for option schemas that contain one. */
export const sandboxSettingSchema = z.preprocess((value) => (typeof value === 'string' ? { mode: value } : value), optionsSchema);

/**
 * The setting validated, with defaults: mode `'auto'`, no network, nothing
 * writable but the workspace and `/tmp`.
 *
 * @example
 * sandboxSettings(undefined)                              // { mode: 'auto', network: false, writable: [] }
 * sandboxSettings({ mode: 'bubblewrap', network: true })  // { mode: 'bubblewrap', network: true, writable: [] }
 * sandboxSettings('sometimes')                            // throws: Invalid sandbox option: Unknown sandbox mode "sometimes"; …
 * @throws Error naming each problem.
 */
export function sandboxSettings(setting: SandboxSetting | undefined): SandboxSettings {
  const parsed = sandboxSettingSchema.optional().safeParse(setting);
  if (!parsed.success) {
    throw new Error(`Invalid sandbox option: ${parsed.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ')}`);
  }
  const options = parsed.data ?? {};
  return { mode: options.mode ?? 'auto', network: options.network ?? false, writable: options.writable ?? [] };
}
