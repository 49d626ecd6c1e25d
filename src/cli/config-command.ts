import type { LoadedConfig } from './config-files.js';
import type { TextSink } from './redact.js';

/**
 * `loopchart config`: the settings a run on a real model starts from, each with where it came
 * from, and the files looked for. With `json`, the same as one JSON object.
 *
 * @example
 * configCommand(await loadCliConfig({ workspace: process.cwd(), env: process.env }), { json: false, stdout: process.stdout });
 */
export function configCommand(loaded: LoadedConfig, { json, stdout }: { json: boolean; stdout: TextSink }): number {
  stdout.write(json ? `${JSON.stringify(loaded)}\n` : `${formatConfig(loaded)}\n`);
  return 0;
}

/** The human form of {@link configCommand}'s output. */
export function formatConfig({ config, sources, files }: LoadedConfig): string {
  const settings = flatten(config);
  const width = Math.max(0, ...settings.map(([name, value]) => `${name}: ${value}`.length));
  const lines = settings.length > 0 ? settings.map(([name, value]) => `${`${name}: ${value}`.padEnd(width)}  (${sources[name] ?? '?'})`) : ['(no settings: a prompt needs --model)'];
  return [
    ...lines,
    '',
    'Looked for, each over the one before:',
    ...files.map((file) => `  ${file.path}${file.found ? '' : ' (none)'}`),
    '  LOOPCHART_MODEL',
    '',
    'These are defaults for a run on a real model (a prompt, or a script with --model): flags win, then',
    "a script's own fields; a script run on its own scripted model uses none of them.",
  ].join('\n');
}

function flatten(value: object, prefix = ''): Array<[string, string]> {
  return Object.entries(value).flatMap(([key, field]): Array<[string, string]> => {
    const name = `${prefix}${key}`;
    if (field !== null && typeof field === 'object' && !Array.isArray(field)) return flatten(field as object, `${name}.`);
    return [[name, typeof field === 'string' ? field : JSON.stringify(field)]];
  });
}
