/**
 * A benchmark script run in a fresh `node --expose-gc` process (through tsx),
 * so that it sees no other benchmark's garbage and can be given V8 flags: its
 * report is the JSON of the last line it prints.
 *
 * @example
 * ```ts
 * const report = await childReport<MemoryReport>('memory-child.ts');
 * const cpu = await childReport<number[]>('many-agents-child.ts', ['--max-semi-space-size=64']);
 * ```
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `bench/<script>` with `flags` before the script, and parses the last line it printed. */
export async function childReport<T>(script: string, flags: string[] = []): Promise<T> {
  const child = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', ...flags, '--import', import.meta.resolve('tsx'), child], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
