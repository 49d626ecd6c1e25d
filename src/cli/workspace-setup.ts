import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
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
      await writeFile(target, content);
    }
  } catch (error) {
    await workspace.dispose();
    throw error;
  }
  return workspace;
}
