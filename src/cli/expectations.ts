import { resolveInWorkspace } from '../tools/index.js';
import { openForReading } from '../tools/workspace.js';
import type { RunResult } from '../core/result.js';
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
    const actual = await readExpectedFile(cwd, target, file);
    if (actual instanceof Error) failures.push(`files.${file}: ${actual.message}`);
    else if (actual !== content) failures.push(`files.${file}: expected ${JSON.stringify(content)}, got ${JSON.stringify(actual)}`);
  }
  return failures;
}

/**
 * The file's text, or why it cannot be compared: missing, or not a regular
 * file. Opened once without blocking and checked as opened, as the read tool
 * does: a FIFO would otherwise wait for a writer for ever.
 */
async function readExpectedFile(cwd: string, target: string, file: string): Promise<string | Error> {
  let handle;
  try {
    handle = await openForReading(cwd, target, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return new Error('missing');
    if (code === 'EISDIR') return new Error('is a directory, not a regular file');
    return error instanceof Error ? error : new Error(String(error));
  }
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
