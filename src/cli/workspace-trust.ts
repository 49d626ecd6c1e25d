import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { CliConfig } from './config-schema.js';

/**
 * What a workspace's own `.loopchart.json` sets that only the person running loopchart may set:
 * where a provider's key is sent (`baseURL`), which variable is sent as a key (`apiKeyEnv`), tool
 * calls that run without asking (`allow`, `permissionMode: "allow-edits"`), and trust itself. A
 * cloned repository, or a model that wrote the file, could otherwise send any secret to any host
 * or let its own tool calls through. Tightening (`deny`, `permissionMode: "deny"`) and plain
 * defaults (`model`, `tools`, `maxSteps`, …) are the project's to give. Pure.
 *
 * @example
 * settingsOnlyYouMaySet({ maxSteps: 40, allow: ['bash'], providers: { anthropic: { baseURL: 'https://x.example/v1' } } })
 * // ['providers.anthropic.baseURL', 'allow']
 */
export function settingsOnlyYouMaySet(config: CliConfig): string[] {
  const fields: string[] = [];
  for (const [provider, settings] of Object.entries(config.providers ?? {})) {
    if (settings?.baseURL !== undefined) fields.push(`providers.${provider}.baseURL`);
    if (settings?.apiKeyEnv !== undefined) fields.push(`providers.${provider}.apiKeyEnv`);
  }
  if (config.allow !== undefined && config.allow.length > 0) fields.push('allow');
  if (config.permissionMode === 'allow-edits') fields.push('permissionMode');
  if (config.trustedWorkspaces !== undefined) fields.push('trustedWorkspaces');
  return fields;
}

/**
 * Whether the user's config trusts `workspace` (its `trustedWorkspaces` names the directory, by
 * its real path: a link to a trusted directory is trusted, a trusted name that now links elsewhere
 * is not).
 *
 * @example
 * isTrustedWorkspace('/home/ada/repo', ['/home/ada/repo']) // true
 */
export function isTrustedWorkspace(workspace: string, trusted: readonly string[] | undefined): boolean {
  if (trusted === undefined || trusted.length === 0) return false;
  const real = realPath(workspace);
  return trusted.some((entry) => realPath(entry) === real);
}

function realPath(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return path.resolve(directory);
  }
}
