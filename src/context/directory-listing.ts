import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * A directory's entries as the `ls` tool shows them: sorted by name, hidden
 * ones included, directories (and links to directories) ending in `/`, and
 * at most `maxEntries` of them, the rest summarised as `[… N more]`.
 *
 * @example
 * await listDirectory('/ws/src', 'src', 100);
 * // "index.ts\ntools/"
 */
export async function listDirectory(directory: string, displayPath: string, maxEntries: number, signal?: AbortSignal): Promise<string> {
  const entries = await readdir(directory, { withFileTypes: true });
  if (entries.length === 0) return `(directory '${displayPath}' is empty)`;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const shown: string[] = [];
  for (const entry of entries.slice(0, maxEntries)) {
    signal?.throwIfAborted();
    const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && (await pointsToDirectory(path.join(directory, entry.name))));
    shown.push(isDirectory ? `${entry.name}/` : entry.name);
  }
  const hidden = entries.length - shown.length;
  return hidden > 0 ? `${shown.join('\n')}\n[… ${hidden} more]` : shown.join('\n');
}

async function pointsToDirectory(link: string): Promise<boolean> {
  const target = await stat(link).catch(() => undefined);
  return target?.isDirectory() === true;
}
