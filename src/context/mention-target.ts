import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describeFsError, errorCode } from '../tools/fs-errors.js';
import { realWorkspaceRoot, resolveInWorkspace, resolveLexically, toWorkspaceRelative } from '../tools/workspace.js';

/** What a mentioned path turned out to be. */
export type MentionTarget =
  | { kind: 'file' | 'directory'; realPath: string; displayPath: string }
  | { kind: 'unavailable'; reason: string };

/**
 * Resolves a mentioned path inside the workspace `cwd`, with the confinement
 * of the file tools (`resolveInWorkspace`): a `../` escape, an absolute path
 * elsewhere and a symbolic link that leads outside are all refused.
 *
 * @example
 * await resolveMentionTarget('/ws', 'src/a.ts') // { kind: 'file', realPath: '/ws/src/a.ts', displayPath: 'src/a.ts' }
 * await resolveMentionTarget('/ws', '../x')     // { kind: 'unavailable', reason: 'outside the workspace' }
 */
export async function resolveMentionTarget(cwd: string, userPath: string): Promise<MentionTarget> {
  let realPath: string;
  try {
    realPath = await resolveInWorkspace(cwd, userPath);
  } catch (error) {
    return { kind: 'unavailable', reason: await whyRefused(cwd, userPath, error) };
  }
  try {
    const stats = await stat(realPath);
    const displayPath = workspaceRelative(cwd, userPath);
    if (stats.isFile()) return { kind: 'file', realPath, displayPath };
    if (stats.isDirectory()) return { kind: 'directory', realPath, displayPath };
    return { kind: 'unavailable', reason: 'not a regular file or directory' };
  } catch (error) {
    return { kind: 'unavailable', reason: errorCode(error) === 'ENOENT' ? 'no such file or directory' : describeFsError(error, userPath).message };
  }
}

async function whyRefused(cwd: string, userPath: string, error: unknown): Promise<string> {
  try {
    resolveLexically(cwd, userPath, [await realWorkspaceRoot(cwd)]);
  } catch {
    return 'outside the workspace';
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.includes('symbolic link') ? 'a symbolic link on the way leads outside the workspace' : message;
}

/** The mentioned path relative to the workspace root (`./src/../a.ts` → `a.ts`), as written when it cannot be. */
function workspaceRelative(cwd: string, userPath: string): string {
  const root = path.resolve(cwd);
  const relative = toWorkspaceRelative(root, path.resolve(root, userPath));
  return relative.startsWith('..') ? userPath : relative;
}
