import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cliConfigSchema } from './config-schema.js';
import { mergeConfigLayers, type ConfigLayer, type MergedConfig } from './config-layers.js';
import { UsageError } from './usage-error.js';
import { isTrustedWorkspace, settingsOnlyYouMaySet } from './workspace-trust.js';

/** The name of a workspace's config file. */
export const WORKSPACE_CONFIG = '.loopchart.json';

const MAX_CONFIG_BYTES = 256 * 1024;

/** Where the CLI looks for config, and what it found. */
export interface LoadedConfig extends MergedConfig {
  /** The files looked for, lowest first, and whether each was there. */
  files: Array<{ path: string; found: boolean }>;
}

/**
 * The user's config file: `$XDG_CONFIG_HOME/loopchart/config.json`, else `~/.config/loopchart/config.json`.
 *
 * @example
 * userConfigPath({ HOME: '/home/ada' }) // "/home/ada/.config/loopchart/config.json"
 */
export function userConfigPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : path.join(env.HOME ?? os.homedir(), '.config');
  return path.join(base, 'loopchart', 'config.json');
}

/**
 * Reads the config that applies in `workspace`: the user's file, then the workspace's
 * `.loopchart.json`, then `LOOPCHART_MODEL`, each over the one before.
 *
 * @example
 * const { config, sources } = await loadCliConfig({ workspace: process.cwd(), env: process.env });
 * @throws UsageError naming the file (or variable) and each invalid field.
 */
export async function loadCliConfig({ workspace, env }: { workspace: string; env: NodeJS.ProcessEnv }): Promise<LoadedConfig> {
  const userFile = userConfigPath(env);
  const workspaceFile = path.join(path.resolve(workspace), WORKSPACE_CONFIG);
  const layers: ConfigLayer[] = [];
  const looked: LoadedConfig['files'] = [];
  for (const file of [userFile, workspaceFile]) {
    const text = await readConfigFile(file);
    looked.push({ path: file, found: text !== undefined });
    if (text !== undefined) layers.push({ source: file, config: parseConfig(text, file) });
  }
  const workspaceLayer = layers.find((layer) => layer.source === workspaceFile);
  const userLayer = layers.find((layer) => layer.source === userFile);
  if (workspaceLayer && !isTrustedWorkspace(path.resolve(workspace), userLayer?.config.trustedWorkspaces)) {
    refuseUntrustedSettings(workspaceLayer, userFile, path.resolve(workspace));
  }
  const model = env.LOOPCHART_MODEL;
  if (model !== undefined && model !== '') layers.push({ source: 'LOOPCHART_MODEL', config: validate({ model }, 'LOOPCHART_MODEL', 'the variable') });
  return { ...mergeConfigLayers(layers), files: looked };
}

/** A workspace file that sets what only the person running loopchart may set stops the command, naming each setting. */
function refuseUntrustedSettings(layer: ConfigLayer, userFile: string, workspace: string): void {
  const fields = settingsOnlyYouMaySet(layer.config);
  if (fields.length === 0) return;
  throw new UsageError(
    [
      `config ${layer.source} sets what only you may set for your runs:`,
      ...fields.map((field) => `  - ${field}`),
      'A workspace is not trusted: its file could send a key to any host or let tool calls run without asking (docs/security.md).',
      `Set these in ${userFile} or by flag, or trust this workspace there: "trustedWorkspaces": [${JSON.stringify(workspace)}].`,
    ].join('\n'),
  );
}

/** A config file's settings, checked. */
export function parseConfig(text: string, file: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`invalid config ${file}: it is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return validate(json, file, 'the file');
}

function validate(data: unknown, source: string, whole: string) {
  const parsed = cliConfigSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `  - ${issue.path.length > 0 ? issue.path.map(String).join('.') : whole}: ${issue.message}`);
  throw new UsageError(`invalid config ${source}:\n${lines.join('\n')}`);
}

/** The file's text, or undefined when there is none. A FIFO or a huge file is refused, not read. */
async function readConfigFile(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UsageError(`config ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UsageError(`config ${file} is not a regular file`);
    if (stats.size > MAX_CONFIG_BYTES) throw new UsageError(`config ${file} is larger than ${MAX_CONFIG_BYTES / 1024} KiB`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
