import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { ScriptTurn } from '../../../src/test/index.js';

/** A script file's fields (see src/cli/script.ts); tests write them as JSON, which is valid YAML. */
export interface ScriptFile {
  prompt: string | string[];
  instructions?: string;
  tools?: string[];
  maxSteps?: number;
  toolExecution?: 'parallel' | 'sequential';
  doomLoop?: false | { threshold?: number; action?: 'stop' | 'ask' };
  approval?: { deny?: string[]; ask?: string[]; allow?: string[]; default?: 'allow' | 'deny' | 'ask' };
  onDeny?: 'continue' | 'stop';
  files?: Record<string, string>;
  allowNetwork?: boolean;
  turns?: ScriptTurn[];
  expect?: { outcome?: string; textContains?: string | string[]; files?: Record<string, string> };
}

const created: string[] = [];
// Each test file imports its own copy of this module: its directories go when that file's tests are done.
afterAll(() => Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

/** A new temporary directory, removed after the test file's last test. */
export async function tempDir(prefix = 'loopchart-cli-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes `script` as `<dir>/<name>` (JSON, or YAML text as given) and returns its path. */
export async function writeScript(dir: string, name: string, script: ScriptFile | string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, typeof script === 'string' ? script : JSON.stringify(script, null, 2));
  return file;
}

/** NDJSON output (`--events`) as the text of one JSON array, for `JSON.parse`. */
export function asJsonArray(ndjson: string): string {
  return `[${ndjson.trim().split('\n').join(',')}]`;
}
