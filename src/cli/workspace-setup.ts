import { mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
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

/** Decides the workspace root for the built-in tools, writes the script's files into it, and returns its absolute path. */
export async function prepareWorkspace({ cwd, fallback, files = {} }: WorkspaceSetup): Promise<string> {
  let root: string;
  if (cwd !== undefined) {
    root = path.resolve(cwd);
    const stats = await stat(root).catch(() => undefined);
    if (!stats?.isDirectory()) throw new UsageError(`--cwd ${cwd} is not an existing directory`);
  } else {
    root = fallback === 'temp' ? await mkdtemp(path.join(os.tmpdir(), 'loopchart-')) : process.cwd();
  }
  for (const [file, content] of Object.entries(files)) {
    const target = await resolveInWorkspace(root, file).catch((error: unknown) => {
      throw new UsageError(`the script's files.${file} cannot be created: ${error instanceof Error ? error.message : String(error)}`);
    });
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return root;
}
