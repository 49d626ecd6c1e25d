import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * The mode of every file the CLI writes: they hold prompts, file contents and
 * tool output, so only their owner reads them (as the session files).
 */
export const PRIVATE_FILE_MODE = 0o600;

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

/**
 * Writes a result file readable by its owner only ({@link PRIVATE_FILE_MODE}):
 * a new file is created so, and an existing regular file is made so before its
 * old content is replaced (a pipe or a terminal, `/dev/stdout`, keeps its
 * mode). The error names the option and the file.
 *
 * @example
 * await writeOutputFile('--trace', 'run.trace.json', text) // run.trace.json is -rw-------
 */
export async function writeOutputFile(option: string, file: string, text: string): Promise<void> {
  try {
    // Not truncated on open: an existing file is made private before anything is written to it.
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT, PRIVATE_FILE_MODE);
    try {
      if ((await handle.stat()).isFile()) {
        await handle.chmod(PRIVATE_FILE_MODE);
        await handle.truncate(0);
      }
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new Error(`${option}: cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
