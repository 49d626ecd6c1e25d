import { readFile } from 'node:fs/promises';
import { resolveInWorkspace } from '../tools/index.js';
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
    // Confined like the tools: an expectation may not read outside the workspace.
    const target = await resolveInWorkspace(cwd, file).catch((error: unknown) => error as Error);
    if (target instanceof Error) {
      failures.push(`files.${file}: ${target.message}`);
      continue;
    }
    const actual = await readFile(target, 'utf8').catch(() => undefined);
    if (actual === undefined) failures.push(`files.${file}: missing`);
    else if (actual !== content) failures.push(`files.${file}: expected ${JSON.stringify(content)}, got ${JSON.stringify(actual)}`);
  }
  return failures;
}
