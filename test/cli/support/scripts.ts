import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ScriptTurn } from '../../../src/models/index.js';

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
  turns?: ScriptTurn[];
  expect?: { outcome?: string; textContains?: string | string[]; files?: Record<string, string> };
}

/** A new temporary directory. */
export function tempDir(prefix = 'loopchart-cli-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
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
