import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { postgresBinary, startPostgres, type PostgresServer } from './postgres-server.js';

/** A test file's throwaway server and the pools its tests open on it. */
export interface PostgresForTests {
  /** Debian's PostgreSQL programs, or undefined (with a notice) when they are not installed: skip the tests then. */
  binary: string | undefined;
  /** The server, once `beforeAll` has started it. */
  server(): PostgresServer;
  /** A pool on the server (or on `connectionString`, a proxy in front of it) whose idle errors are tolerated, ended after the file's tests. */
  newPool(connectionString?: string): pg.Pool;
}

/**
 * Starts one server for the calling test file before its tests (when the binary is there) and
 * stops it, after ending every pool `newPool` opened, when they are done.
 *
 * @example
 * const postgres = usePostgresForTests();
 * describe.skipIf(postgres.binary === undefined)('pgControlChannel', () => {
 *   it('…', async () => { const pool = postgres.newPool(); });
 * });
 */
export function usePostgresForTests(): PostgresForTests {
  const binary = postgresBinary();
  let server: PostgresServer | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    if (binary !== undefined) server = await startPostgres(binary);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await server?.stop();
  });
  return {
    binary,
    server: () => {
      if (server === undefined) throw new Error('the PostgreSQL server is not started: call this inside a test');
      return server;
    },
    newPool: (connectionString) => {
      const pool = new pg.Pool({ connectionString: connectionString ?? (server ? server.url : undefined), max: 4 });
      pool.on('error', () => undefined);
      pools.push(pool);
      return pool;
    },
  };
}
