import { fileStore } from '../persistence/file-store.js';
import { redactingStore } from '../persistence/redacting-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { UsageError } from './usage-error.js';

/** Where `loopchart fork` and `loopchart script` find sessions: `--session DIR` or `--pg URL`. */
export type SessionPlace = { dir: string } | { pg: string };

/** An open store and how to let it go. */
export interface OpenedSessionSource {
  store: SessionStore;
  /** The place as messages name it: the directory, or "Postgres". */
  where: string;
  close(): Promise<void>;
}

/**
 * Opens the store of `place`, redacting `secrets` from what it writes. Postgres comes from the `pg`
 * package, loaded only for `--pg`.
 *
 * @example
 * const source = await openSessionSource({ dir: '.sessions' }, []);
 * try { console.log(await source.store.read('chat-42')); } finally { await source.close(); }
 * @throws UsageError when `pg` is not installed.
 */
export async function openSessionSource(place: SessionPlace, secrets: readonly string[]): Promise<OpenedSessionSource> {
  if ('dir' in place) return { store: redactingStore(fileStore(place.dir), secrets), where: place.dir, close: async () => undefined };
  let pg: typeof import('pg');
  try {
    pg = await import('pg');
  } catch {
    throw new UsageError('--pg needs the pg package: npm install pg');
  }
  const { pgStore } = await import('../postgres/pg-store.js');
  const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool;
  const pool = new Pool({ connectionString: place.pg, max: 2 });
  return { store: redactingStore(pgStore(pool), secrets), where: 'Postgres', close: () => pool.end() };
}

/** The session's log, or a usage error that says where it was looked for. */
export async function readSessionOrFail(source: OpenedSessionSource, sessionId: string) {
  const log = await source.store.read(sessionId);
  if (!log) throw new UsageError(`there is no session ${sessionId} in ${source.where === 'Postgres' ? 'the Postgres database' : `${source.where} (no ${sessionId}.jsonl)`}`);
  return log;
}
