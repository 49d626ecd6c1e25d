import { isProviderKeyVariable } from '../secrets/provider-key-variables.js';

/**
 * The CLI takes every provider key variable (`PROVIDER_KEY_VARIABLES`, any
 * `*_API_KEY` and the run's `--api-key-env`) out of its own environment
 * before a run starts, whatever model the run uses, and keeps their values to
 * redact from every output.
 *
 * Removes every provider key variable from `env` and returns what was
 * removed (name → value), for the model to read its key from and for
 * redaction. Empty values are removed and not returned.
 */
export function withdrawProviderKeys(env: NodeJS.ProcessEnv, apiKeyEnv: string | undefined): Record<string, string> {
  const withdrawn: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    if (!isProviderKeyVariable(name, apiKeyEnv)) continue;
    const value = env[name];
    delete env[name];
    if (value) withdrawn[name] = value;
  }
  return withdrawn;
}
