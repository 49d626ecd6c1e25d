import { stat } from 'node:fs/promises';

/** What `loopchart run <argument>` runs. */
export type RunTarget = { kind: 'script'; file: string } | { kind: 'prompt'; text: string };

const SCRIPT_EXTENSIONS = /\.(ya?ml|json)$/i;

/**
 * A script when the argument is an existing file ending in `.yaml`, `.yml` or
 * `.json`; otherwise the argument is the prompt itself.
 *
 * @example
 * await runTarget('examples/demo.yaml')   // { kind: 'script', file: 'examples/demo.yaml' }
 * await runTarget('Fix the failing test') // { kind: 'prompt', text: 'Fix the failing test' }
 */
export async function runTarget(argument: string): Promise<RunTarget> {
  if (SCRIPT_EXTENSIONS.test(argument)) {
    const stats = await stat(argument).catch(() => undefined);
    if (stats?.isFile()) return { kind: 'script', file: argument };
  }
  return { kind: 'prompt', text: argument };
}
