import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A new temporary directory for every test of the file or `describe` block
 * that calls this, removed (with all it holds) after the test. Returns the
 * current test's directory.
 *
 * @example
 * ```ts
 * const dir = useTempDir('loopchart-sessions-');
 * it('keeps the history', async () => {
 *   const store = fileStore({ dir: dir() });
 * });
 * ```
 */
export function useTempDir(prefix: string): () => string {
  let current: string | undefined;
  beforeEach(async () => {
    current = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error('useTempDir: the directory exists only while a test runs');
    return current;
  };
}
