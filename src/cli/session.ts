import { fileStore } from '../persistence/file-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { UsageError } from './usage-error.js';

/** The session of a `loopchart run --session DIR [--resume ID]`. */
export interface CliSession {
  store: SessionStore;
  /** The id to resume; absent for a new session (the agent picks one). */
  resumeId?: string;
}

/**
 * The file store in `dir` (the agent, given the run's secrets, redacts what it writes there) and, with `resume`, a check that the session exists
 * there (the store would otherwise start a new, empty one under that id).
 *
 * @example
 * await openCliSession('.sessions', 'chat-42') // { store, resumeId: 'chat-42' }
 * @throws UsageError when the session to resume is not in `dir`.
 */
export async function openCliSession(dir: string, resume?: string): Promise<CliSession> {
  const store = fileStore(dir);
  if (resume === undefined) return { store };
  const log = await store.read(resume);
  if (!log) throw new UsageError(`--resume ${resume}: there is no such session in ${dir} (no ${resume}.jsonl)`);
  return { store, resumeId: resume };
}
