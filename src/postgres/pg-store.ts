import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { refuseMovedRedactOption } from '../secrets/moved-secrets-option.js';
import { checkSessionHeader } from '../persistence/jsonl.js';
import { assertSessionId } from '../persistence/session-id.js';
import { checkSessionRecord } from '../persistence/session-record-check.js';
import { tolerateIdleConnectionErrors, withPoolClient } from './pg-connection-errors.js';
import { leaseRules, type LeaseRow } from '../persistence/lease-rules.js';
import { SessionConflictError, SessionFormatError, SessionMissingError, type AppendOptions, type SessionHeader, type SessionLease, type SessionLeases, type SessionLog, type SessionRecord, type SessionStore, type SessionVersion } from '../persistence/session-store.js';

export interface PgStoreOptions {
  /**
   * The Postgres schema that holds loopchart's three tables (created when missing): lowercase
   * letters, digits and underscores, a reserved word such as `user` included (it is quoted).
   * Default `public`.
   */
  schema?: string;
  /**
   * Called when a connection the pool holds idle breaks (the server restarted, a proxy cut it).
   * `pgStore` listens for these on the pool, so they never end the process; the next query gets
   * a new connection. Default: ignored.
   */
  onConnectionError?: (error: Error) => void;
}

/** `pgStore`'s options, checked whole: a misspelt one is refused, not ignored. `schema` is checked by its own rule, whose message says what a name may be. */
const pgStoreOptionsSchema = z.strictObject({
  schema: z.unknown().optional(),
  onConnectionError: functionOption<(error: Error) => void>().optional(),
});

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The `NOTIFY` channel on which every append announces `<sessionId> <record count>`. */
export const SESSION_CHANGED_CHANNEL = 'loopchart_session_changed';

/** Sessions, their records and their leases: the same content, format and rules as `fileStore`'s files. */
function schemaStatements(quotedSchema: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quotedSchema}`,
    `CREATE TABLE IF NOT EXISTS ${quotedSchema}.loopchart_sessions (
       session_id text PRIMARY KEY,
       header json NOT NULL,
       record_count bigint NOT NULL DEFAULT 0
     )`,
    `CREATE TABLE IF NOT EXISTS ${quotedSchema}.loopchart_session_records (
       session_id text NOT NULL REFERENCES ${quotedSchema}.loopchart_sessions ON DELETE CASCADE,
       seq bigint NOT NULL,
       record json NOT NULL,
       PRIMARY KEY (session_id, seq)
     )`,
    `CREATE TABLE IF NOT EXISTS ${quotedSchema}.loopchart_session_leases (
       session_id text PRIMARY KEY,
       owner text NOT NULL,
       epoch bigint NOT NULL,
       expires_at bigint NOT NULL
     )`,
  ];
}

/** Serialises schema creation across processes (`CREATE TABLE IF NOT EXISTS` races with itself). */
const SCHEMA_LOCK_KEY = 0x6c6f6f70; // "loop"

/**
 * A session store on PostgreSQL (the `pg` package's `Pool`): one row per
 * session, one per record, one per lease, in three tables it creates on first
 * use. Same contract as `fileStore` — records in append order, `append`
 * resolves once committed, `SessionConflictError` when another writer wrote
 * since `after`, `SessionMissingError` for a session that is gone — and the
 * same session format. A session's version is its record count.
 *
 * Leases (`store.leases`) use the database's clock, so workers with skewed
 * clocks agree on expiry. A fenced append (`epoch`) locks the lease row in the
 * transaction that writes, so no acquisition can slip between the check and
 * the write: a worker that lost its lease gets `LeaseLostError` and writes
 * nothing.
 *
 * Every append also sends a `NOTIFY` (on commit) that `watchSession` listens
 * to, so a reader without Redis learns that a session moved on and re-reads it.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createAgent } from 'loopchart';
 * import { pgStore } from 'loopchart/postgres';
 *
 * const store = pgStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * const agent = createAgent({ model, store, sessionId: 'chat-42', lease: { owner: 'worker-1' } });
 * ```
 */
export function pgStore(pool: Pool, options: PgStoreOptions = {}): SessionStore {
  // Checked before the pool is touched: a bad option leaves it as it was.
  refuseMovedRedactOption(options, 'pgStore');
  const { schema = 'public', onConnectionError } = parseOptions('pgStore', pgStoreOptionsSchema, options);
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) throw new TypeError(`pgStore: invalid schema name "${String(schema)}" (lowercase letters, digits and underscores)`);
  // Quoted, so a reserved word (`user`, `order`) names a schema too; lowercase as IDENTIFIER asks, it is the schema the unquoted name would be.
  const quotedSchema = `"${schema}"`;
  tolerateIdleConnectionErrors(pool, onConnectionError);
  const encode = (value: unknown) => JSON.stringify(value);
  let ready: Promise<void> | undefined;
  const ensureSchema = () =>
    (ready ??= transaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
      for (const statement of schemaStatements(quotedSchema)) await client.query(statement);
    }).catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));
  const inTransaction = async <T>(work: (client: PoolClient) => Promise<T>): Promise<T> => {
    await ensureSchema();
    return transaction(pool, work);
  };
  const tables = {
    sessions: `${quotedSchema}.loopchart_sessions`,
    records: `${quotedSchema}.loopchart_session_records`,
    leases: `${quotedSchema}.loopchart_session_leases`,
  };

  return {
    async read(sessionId: string): Promise<SessionLog | undefined> {
      assertSessionId(sessionId);
      await ensureSchema();
      // One statement, one snapshot: the header, the count and the records agree.
      const result = await pool.query<{ header: unknown; record_count: string; seq: string | null; record: unknown }>(
        `SELECT s.header, s.record_count, r.seq, r.record
           FROM ${tables.sessions} s LEFT JOIN ${tables.records} r USING (session_id)
          WHERE s.session_id = $1
          ORDER BY r.seq`,
        [sessionId],
      );
      const first = result.rows[0];
      if (!first) return undefined;
      checkSessionHeader(first.header, `session ${sessionId} (Postgres)`);
      const source = `session ${sessionId} (Postgres)`;
      // No seq: the session has no records (the join found none). A record that is JSON null, or not a record, is refused, not skipped.
      const count = Number(first.record_count);
      const edited = (problem: string) => new SessionFormatError(`${source}: ${problem} (it counts ${count} records, seq 1 to ${count}): a row was deleted or added by hand`);
      const records = result.rows.flatMap((row, index) => {
        if (row.seq === null) return [];
        // The rows come in seq order, and appends number them 1 to the count with no gap.
        const seq = Number(row.seq);
        if (seq > count) throw edited(`record ${seq} is beyond its record count`);
        if (seq !== index + 1) throw edited(`record ${index + 1} is missing`);
        checkSessionRecord(row.record, `${source}, record ${row.seq}`);
        return [row.record];
      });
      if (records.length < count) throw edited(`record ${records.length + 1} is missing`);
      const warnings = first.header.sessionId === sessionId ? [] : [`${source}: its header names session ${JSON.stringify(first.header.sessionId)}, not "${sessionId}": the row was changed by hand; it is read as session ${sessionId}`];
      return { header: first.header, records, warnings, version: count };
    },

    async create(header: SessionHeader): Promise<SessionVersion> {
      assertSessionId(header.sessionId);
      return inTransaction(async (client) => {
        const inserted = await client.query(
          `INSERT INTO ${tables.sessions} (session_id, header) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING`,
          [header.sessionId, encode(header)],
        );
        if (inserted.rowCount !== 1) throw new Error(`session ${header.sessionId} exists already`);
        return 0;
      });
    },

    async append(sessionId: string, records: SessionRecord[], appendOptions: AppendOptions = {}): Promise<SessionVersion> {
      assertSessionId(sessionId);
      return inTransaction(async (client) => {
        // The shared advisory lock first, in a statement of its own: the next one's snapshot then sees any acquisition that committed before it.
        await client.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [leaseLockName(sessionId)]);
        const found = await client.query<{ record_count: string; owner: string | null; epoch: string | null; expires_at: string | null; now: number }>(
          `SELECT s.record_count, l.owner, l.epoch, l.expires_at, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now
             FROM ${tables.sessions} s LEFT JOIN ${tables.leases} l USING (session_id)
            WHERE s.session_id = $1
              FOR UPDATE OF s`,
          [sessionId],
        );
        const row = found.rows[0];
        if (!row) throw new SessionMissingError(`session ${sessionId} is gone (deleted while the session was open); nothing was written, and it is not recreated`);
        const lease = row.owner === null ? undefined : { owner: row.owner, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) };
        leaseRules.checkWrite(sessionId, lease, appendOptions.epoch, row.now);
        const count = Number(row.record_count);
        if (appendOptions.after !== undefined && count !== Number(appendOptions.after)) {
          throw new SessionConflictError(
            `session ${sessionId} was written by another writer since this one read it (${count} records, expected ${String(appendOptions.after)}); nothing was written: open the session again to continue it`,
          );
        }
        if (records.length === 0) return count;
        await client.query(
          `WITH added AS (
             INSERT INTO ${tables.records} (session_id, seq, record)
             SELECT $1, $2::bigint + ordinality, record FROM unnest($3::json[]) WITH ORDINALITY AS t(record, ordinality)
           )
           , updated AS (UPDATE ${tables.sessions} SET record_count = $2::bigint + $4::bigint WHERE session_id = $1 RETURNING record_count)
           -- Readers that watch the session (watchSession) re-read it; delivered when the transaction commits.
           SELECT pg_notify('${SESSION_CHANGED_CHANNEL}', $1 || ' ' || record_count) FROM updated`,
          [sessionId, count, records.map(encode), records.length],
        );
        return count + records.length;
      });
    },

    leases: pgLeases(inTransaction, tables.leases),
  };
}

function pgLeases(inTransaction: <T>(work: (client: PoolClient) => Promise<T>) => Promise<T>, table: string): SessionLeases {
  const write = (client: PoolClient, sessionId: string, row: LeaseRow) =>
    client.query(
      `INSERT INTO ${table} (session_id, owner, epoch, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = EXCLUDED.epoch, expires_at = EXCLUDED.expires_at`,
      [sessionId, row.owner, row.epoch, Math.round(row.expiresAt)],
    );
  return {
    acquire: async (sessionId: string, owner: string, ttlMs: number) => {
      assertSessionId(sessionId);
      return inTransaction(async (client) => {
        // A lock on the session id even when it has no lease row yet, so two first acquisitions queue up.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [leaseLockName(sessionId)]);
        const { lease, now } = await lockedLease(client, table, sessionId, 'FOR UPDATE');
        const acquired = leaseRules.acquire(sessionId, lease, owner, ttlMs, now);
        await write(client, sessionId, acquired);
        return acquired;
      });
    },
    renew: (held: SessionLease, ttlMs: number) =>
      inTransaction(async (client) => {
        const { lease, now } = await lockedLease(client, table, held.sessionId, 'FOR UPDATE');
        const renewed = leaseRules.renew(lease, held, ttlMs, now);
        await write(client, held.sessionId, renewed);
        return renewed;
      }),
    release: (held: SessionLease) =>
      inTransaction(async (client) => {
        const { lease } = await lockedLease(client, table, held.sessionId, 'FOR UPDATE');
        const released = leaseRules.release(lease, held);
        if (released) await write(client, held.sessionId, released);
      }),
  };
}

/**
 * The advisory lock of a session's lease, held exclusively by an acquisition and shared by
 * appends: a fenced write and a takeover never interleave, even before the lease row exists.
 */
function leaseLockName(sessionId: string): string {
  return `loopchart-lease:${sessionId}`;
}

/** The session's lease row, locked, and the database's clock (ms). */
async function lockedLease(client: PoolClient, table: string, sessionId: string, lock: 'FOR UPDATE' | 'FOR SHARE'): Promise<{ lease: LeaseRow | undefined; now: number }> {
  const result = await client.query<{ owner: string; epoch: string; expires_at: string }>(
    `SELECT owner, epoch, expires_at FROM ${table} WHERE session_id = $1 ${lock}`,
    [sessionId],
  );
  const clock = await client.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now');
  const row = result.rows[0];
  const now = clock.rows[0]!.now;
  return { lease: row ? { owner: row.owner, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) } : undefined, now };
}

function transaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withPoolClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
