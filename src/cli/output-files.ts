import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * Checks, before a run starts, that a file an option names can be created:
 * its directory exists and the path is not a directory. A long run should not
 * end with nowhere to write its results.
 *
 * @example
 * await checkOutputFile('--trace', 'out/trace.json') // throws UsageError when out/ does not exist
 */
export async function checkOutputFile(option: string, file: string): Promise<void> {
  const directory = path.dirname(path.resolve(file));
  const parent = await stat(directory).catch(() => undefined);
  if (!parent?.isDirectory()) throw new UsageError(`${option} ${file}: the directory ${directory} does not exist`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`${option} ${file} is a directory; give a file name`);
}

/** Writes a result file; the error names the option and the file. */
export async function writeOutputFile(option: string, file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new Error(`${option}: cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
