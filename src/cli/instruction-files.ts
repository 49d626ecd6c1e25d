import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectInstructions } from './system-prompt.js';
import { UsageError } from './usage-error.js';

/** The largest instruction file read: a system prompt beyond this is a mistake, not a prompt. */
export const MAX_INSTRUCTION_BYTES = 1024 * 1024;

/** The files `--agents-md` reads from the workspace root, in this order, those that exist. */
export const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;

/**
 * `--system-file FILE`: the file's text.
 *
 * @example
 * await readSystemFile('prompts/reviewer.md') // "You review pull requests…"
 * @throws UsageError when it cannot be read, is not a regular file, is empty or is over {@link MAX_INSTRUCTION_BYTES}.
 */
export async function readSystemFile(file: string): Promise<string> {
  const text = await readInstructionFile(file, `--system-file ${file}`);
  if (text === undefined) throw new UsageError(`--system-file ${file}: there is no such file`);
  if (text.trim() === '') throw new UsageError(`--system-file ${file} is empty`);
  return text;
}

/**
 * `--agents-md`: `AGENTS.md` and `CLAUDE.md` at the workspace root, those that exist.
 *
 * @example
 * await readProjectInstructions('/repo') // [{ name: 'AGENTS.md', content: '…' }]
 * @throws UsageError when neither exists (the flag would change nothing), or one cannot be read.
 */
export async function readProjectInstructions(workspace: string): Promise<ProjectInstructions[]> {
  const found: ProjectInstructions[] = [];
  for (const name of PROJECT_INSTRUCTION_FILES) {
    const content = await readInstructionFile(path.join(workspace, name), `--agents-md: ${name}`);
    if (content !== undefined) found.push({ name, content });
  }
  if (found.length === 0) throw new UsageError(`--agents-md: the workspace ${workspace} has neither ${PROJECT_INSTRUCTION_FILES.join(' nor ')}`);
  return found;
}

/** A text file's content, or undefined when it does not exist. Opened without blocking: a FIFO is refused, not waited on. */
async function readInstructionFile(file: string, what: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`${what}: cannot read it: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UsageError(`${what} is not a regular file`);
    if (stats.size > MAX_INSTRUCTION_BYTES) throw new UsageError(`${what} is ${(stats.size / 1024).toFixed(0)} KiB: an instruction file may be at most ${MAX_INSTRUCTION_BYTES / 1024} KiB`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
