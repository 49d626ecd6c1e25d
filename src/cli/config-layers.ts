import type { CliConfig } from './config-schema.js';

/** One place settings come from: a config file, or `LOOPCHART_MODEL`. */
export interface ConfigLayer {
  /** The file's path, or the variable's name. */
  source: string;
  config: CliConfig;
}

/** The settings in force, and where each came from (dotted field → source). */
export interface MergedConfig {
  config: CliConfig;
  sources: Record<string, string>;
}

/** Lists that add up across layers (a project's rules do not drop the user's); every other field is replaced. */
const ADDED_UP = ['allow', 'deny'] as const;

/**
 * Merges layers, lowest first: a later layer's field replaces an earlier one's, a provider's
 * settings field by field, and `allow` and `deny` add up.
 *
 * @example
 * mergeConfigLayers([{ source: '~/.config/loopchart/config.json', config: { model: 'openai:gpt-4o-mini', maxSteps: 10 } }, { source: '.loopchart.json', config: { maxSteps: 40 } }])
 * // { config: { model: 'openai:gpt-4o-mini', maxSteps: 40 }, sources: { model: '~/.config/…', maxSteps: '.loopchart.json' } }
 */
export function mergeConfigLayers(layers: readonly ConfigLayer[]): MergedConfig {
  const config: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const { source, config: layer } of layers) {
    for (const [field, value] of Object.entries(layer) as Array<[keyof CliConfig, unknown]>) {
      if (value === undefined) continue;
      if (field === 'providers') {
        const providers = (config.providers ?? {}) as Record<string, Record<string, unknown>>;
        for (const [provider, settings] of Object.entries(value as Record<string, Record<string, unknown> | undefined>)) {
          for (const [name, setting] of Object.entries(settings ?? {})) {
            if (setting === undefined) continue;
            providers[provider] = { ...providers[provider], [name]: setting };
            sources[`providers.${provider}.${name}`] = source;
          }
        }
        config.providers = providers;
      } else if ((ADDED_UP as readonly string[]).includes(field)) {
        config[field] = [...((config[field] as string[] | undefined) ?? []), ...(value as string[])];
        sources[field] = sources[field] !== undefined ? `${sources[field]}, ${source}` : source;
      } else {
        config[field] = value;
        sources[field] = source;
      }
    }
  }
  return { config: config, sources };
}
