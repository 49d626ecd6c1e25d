import type { AgentTimeout } from '../options.js';
import type { BuiltinToolName } from '../tools/index.js';
import type { CliConfig } from './config-schema.js';
import { parseModelSpec, type ModelSpec } from './model.js';
import type { PermissionMode } from './permissions.js';
import type { ReasoningEffort } from './reasoning-settings.js';
import type { Script } from './script.js';
import { mergeTimeouts } from './run-timeout.js';

/** The settings of `loopchart run` a config file gives defaults for. */
export interface ConfigurableSettings {
  model?: ModelSpec;
  baseURL?: string;
  apiKeyEnv?: string;
  tools?: BuiltinToolName[];
  maxSteps?: number;
  /** The run's time limits: the config's `timeout`, `--timeout` over its `totalMs`. */
  timeout?: AgentTimeout;
  permissionMode?: PermissionMode;
  allow?: string[];
  deny?: string[];
  agentsMd?: boolean;
  appendSystem?: string;
  reasoningEffort?: ReasoningEffort;
  thinkingBudget?: number;
}

/**
 * The command line's settings with the config's defaults filled in: flags win, then a script's own
 * fields, then the config. `allow` and `deny` add up (the config's rules first). A script run on its
 * own scripted model (no `--model`) takes nothing from the config, so that it replays the same
 * everywhere; the base URL and key variable of `providers` apply to the provider of the model used.
 *
 * @example
 * withConfigDefaults({ maxSteps: 5 }, { model: 'openai:gpt-4o-mini', maxSteps: 40 }, undefined)
 * // { model: { provider: 'openai', modelId: 'gpt-4o-mini' }, maxSteps: 5, allow: [], deny: [] }
 */
export function withConfigDefaults<T extends ConfigurableSettings>(settings: T, config: CliConfig, script: Script | undefined): T {
  if (script && settings.model === undefined) return settings;
  const model = settings.model ?? (config.model !== undefined ? parseModelSpec(config.model) : undefined);
  const provider = model ? config.providers?.[model.provider] : undefined;
  const baseURL = settings.baseURL ?? provider?.baseURL;
  const apiKeyEnv = settings.apiKeyEnv ?? provider?.apiKeyEnv;
  const tools = settings.tools ?? (script?.tools === undefined ? (config.tools as BuiltinToolName[] | undefined) : undefined);
  const maxSteps = settings.maxSteps ?? (script?.maxSteps === undefined ? config.maxSteps : undefined);
  const timeout = typeof settings.timeout === 'object' ? settings.timeout : mergeTimeouts(config.timeout, settings.timeout);
  const permissionMode = settings.permissionMode ?? (config.permissionMode as PermissionMode | undefined);
  const appendSystem = settings.appendSystem ?? config.appendSystem;
  // A flag for either replaces what the config says of both: the two cannot go together.
  const reasoning = settings.reasoningEffort !== undefined || settings.thinkingBudget !== undefined ? settings : config;
  return {
    ...settings,
    ...(model ? { model } : {}),
    ...(baseURL !== undefined ? { baseURL } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(permissionMode !== undefined ? { permissionMode } : {}),
    allow: [...(config.allow ?? []), ...(settings.allow ?? [])],
    deny: [...(config.deny ?? []), ...(settings.deny ?? [])],
    ...(settings.agentsMd || config.agentsMd ? { agentsMd: true } : {}),
    ...(appendSystem !== undefined ? { appendSystem } : {}),
    ...(reasoning.reasoningEffort !== undefined ? { reasoningEffort: reasoning.reasoningEffort as ReasoningEffort } : {}),
    ...(reasoning.thinkingBudget !== undefined ? { thinkingBudget: reasoning.thinkingBudget } : {}),
  };
}
