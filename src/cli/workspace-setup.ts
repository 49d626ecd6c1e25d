import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveInWorkspace } from '../tools/index.js';
import { UsageError } from './usage-error.js';

export interface WorkspaceSetup {
  /** `--cwd`: must be an existing directory. */
  cwd?: string;
  /** Without `--cwd`: a new temporary directory (`'temp'`, for scripts) or the current directory (`'current'`, for prompts). */
  fallback: 'temp' | 'current';
  /** Files to create (path relative to the workspace: content); a path may not leave the workspace. */
  files?: Record<string, string>;
}

export interface Workspace {
  /** The workspace's absolute path. */
  root: string;
  /** Removes the workspace when the run made it (a temporary directory); a no-op for `--cwd` and the current directory. */
  dispose(): Promise<void>;
}

/** Decides the workspace root for the built-in tools and writes the script's files into it. */
export async function prepareWorkspace({ cwd, fallback, files = {} }: WorkspaceSetup): Promise<Workspace> {
  let root: string;
  let temporary = false;
  if (cwd !== undefined) {
    root = path.resolve(cwd);
    const stats = await stat(root).catch(() => undefined);
    if (!stats?.isDirectory()) throw new UsageError(`--cwd ${cwd} is not an existing directory`);
  } else if (fallback === 'temp') {
    root = await mkdtemp(path.join(os.tmpdir(), 'loopchart-'));
    temporary = true;
  } else {
    root = process.cwd();
  }
  const workspace: Workspace = { root, dispose: async () => (temporary ? rm(root, { recursive: true, force: true }) : undefined) };
  try {
    for (const [file, content] of Object.entries(files)) {
      const target = await resolveInWorkspace(root, file).catch((error: unknown) => {
        throw new UsageError(`the script's files.${file} cannot be created: ${error instanceof Error ? error.message : String(error)}`);
      });
      await mkdir(path.dirname(target), { recursive: true });
      await writeRegularFile(target, content, file);
    }
  } catch (error) {
    await workspace.dispose();
    throw error;
  }
  return workspace;
}

/**
 * Creates or replaces a regular file. Opened without blocking and checked as
 * opened: a FIFO already at that path would otherwise wait for a reader for ever.
 * @throws UsageError when something other than a regular file is there.
 */
async function writeRegularFile(target: string, content: string, file: string): Promise<void> {
  const notRegular = () => new UsageError(`the script's files.${file} cannot be created: ${target} exists and is not a regular file (a FIFO, a device or a directory)`);
  let handle;
  try {
    handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    // ENXIO: a FIFO with no reader; EISDIR: a directory.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' || code === 'EISDIR') throw notRegular();
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw notRegular();
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
