import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { sessionIdProblem } from '../persistence/session-id.js';
import { UsageError } from './usage-error.js';

const SESSION_FILE = '.jsonl';

/**
 * `--continue`: the id of the session in `dir` written to last (its `<id>.jsonl` file's
 * modification time: every step boundary appends to it).
 *
 * @example
 * await latestSessionId('.sessions') // "q8Xb3LcW0aKd"
 * @throws UsageError when `dir` cannot be read or holds no session.
 */
export async function latestSessionId(dir: string): Promise<string> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new UsageError(`--continue: cannot read the session directory ${dir}: ${error.message}`);
  });
  const ids = names.filter((name) => name.endsWith(SESSION_FILE)).map((name) => name.slice(0, -SESSION_FILE.length)).filter((id) => sessionIdProblem(id) === undefined);
  const sessions = await Promise.all(
    ids.map(async (id) => {
      const stats = await stat(path.join(dir, `${id}${SESSION_FILE}`)).catch(() => undefined);
      return stats?.isFile() ? { id, writtenAt: stats.mtimeMs } : undefined;
    }),
  );
  const latest = sessions.filter((session) => session !== undefined).sort((a, b) => b.writtenAt - a.writtenAt || a.id.localeCompare(b.id))[0];
  if (!latest) throw new UsageError(`--continue: there is no session in ${dir} to continue (start one with --session ${dir})`);
  return latest.id;
}
