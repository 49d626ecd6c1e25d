/**
 * One change at a time per file: the calls of a step run at once (the
 * default `toolExecution: 'parallel'`), and two edits of one file that both
 * read it before either wrote it would each write back the file without the
 * other's change.
 */

const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` once every task started earlier for the same `file` (a real
 * path, as `resolveInWorkspace` gives it) in this process has settled, and
 * returns its result. Tasks for different files run at once.
 *
 * @example
 * await withFileLock(file, async () => {
 *   const text = await readFile(file, 'utf8');
 *   await writeFileAtomically(file, text.replace('a', 'b'));
 * });
 */
export async function withFileLock<T>(file: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(file) ?? Promise.resolve();
  const result = previous.then(task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  tails.set(file, tail);
  try {
    return await result;
  } finally {
    if (tails.get(file) === tail) tails.delete(file);
  }
}
