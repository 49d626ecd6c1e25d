import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from 'ai';
import { afterEach, beforeEach } from 'vitest';

export interface TempWorkspace {
  /** Workspace root handed to the tools. */
  root: string;
  /** A sibling directory outside the workspace, holding `secret.txt`. */
  outside: string;
  /** Writes a file below the root, creating parent directories. */
  file(relativePath: string, content: string | Uint8Array): Promise<string>;
}

/**
 * Registers beforeEach/afterEach hooks that give every test a fresh temp dir
 * with `ws/` (the workspace) and `outside/secret.txt` next to it.
 */
export function useTempWorkspace(): TempWorkspace {
  let base = '';
  const workspace: TempWorkspace = {
    root: '',
    outside: '',
    async file(relativePath, content) {
      const target = path.join(workspace.root, relativePath);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
  };
  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loopchart-tools-')));
    workspace.root = path.join(base, 'ws');
    workspace.outside = path.join(base, 'outside');
    await mkdir(workspace.root);
    await mkdir(workspace.outside);
    await writeFile(path.join(workspace.outside, 'secret.txt'), 'top secret\n');
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });
  return workspace;
}

/** Calls a tool's `execute` the way the runtime does and expects a string result. */
export async function runTool(tool: Tool | undefined, input: unknown, abortSignal?: AbortSignal): Promise<string> {
  if (!tool?.execute) throw new Error('tool has no execute function');
  const result: unknown = await tool.execute(input, { toolCallId: 't1', messages: [], context: {}, abortSignal });
  if (typeof result !== 'string') throw new Error(`expected a string result, got ${typeof result}`);
  return result;
}
