/**
 * vitest global setup: every test run gets a temporary directory of its own
 * as TMPDIR (inherited by the test workers and the processes they start), and
 * the run fails if anything is left in it at the end — tests leave nothing
 * behind. A directory of its own, so that other runs on the same machine
 * cannot hide or cause a leftover.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MARK = 'LOOPCHART_TEST_TMPDIR';

export default function setup(): () => void {
  // Every vitest project runs the global setup: the first one owns the directory.
  if (process.env[MARK] !== undefined) return () => undefined;
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopchart-test-run-'));
  process.env.TMPDIR = dir;
  process.env[MARK] = dir;
  return () => {
    delete process.env[MARK];
    // Compile caches kept in the temporary directory on purpose go with the run's directory: tsx's
    // (tsx-<uid>), and Node 22's that npm turns on (module.enableCompileCache) when a test runs npm.
    const left = readdirSync(dir).filter((name) => !/^tsx-\d+$/.test(name) && name !== 'node-compile-cache');
    rmSync(dir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (left.length > 0) {
      // A teardown's throw is only logged by vitest: the exit code is what fails the run.
      process.exitCode = 1;
      process.stderr.write(`\nFAIL: the tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in their temporary directory: ${left.sort().join(', ')}\n`);
    }
  };
}
