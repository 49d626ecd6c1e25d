import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from '../result.js';
import type { Script } from './script.js';

/** Checks a script's `expect` block against the run; returns what failed, empty when all holds. */
export async function checkExpectations(expected: Script['expect'], result: RunResult, cwd: string): Promise<string[]> {
  if (!expected) return [];
  const failures: string[] = [];
  if (expected.outcome !== undefined && result.outcome !== expected.outcome) {
    failures.push(`outcome: expected ${expected.outcome}, got ${result.outcome}${result.error ? ` (${result.error.message})` : ''}`);
  }
  const needles = expected.textContains === undefined ? [] : [expected.textContains].flat();
  for (const needle of needles) {
    if (!result.text.includes(needle)) failures.push(`text: expected it to contain ${JSON.stringify(needle)}`);
  }
  for (const [file, content] of Object.entries(expected.files ?? {})) {
    const actual = await readFile(path.resolve(cwd, file), 'utf8').catch(() => undefined);
    if (actual === undefined) failures.push(`files.${file}: missing`);
    else if (actual !== content) failures.push(`files.${file}: expected ${JSON.stringify(content)}, got ${JSON.stringify(actual)}`);
  }
  return failures;
}
