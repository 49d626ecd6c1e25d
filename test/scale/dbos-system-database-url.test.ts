/**
 * DBOS's system database gets its idle-in-transaction limit from the URL, so
 * DBOS sends no `SET` on each new connection and `pg` prints no
 * DeprecationWarning ("client.query() when the client is already executing a
 * query") in every worker and web process.
 */
import { spawn } from 'node:child_process';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbosSystemDatabaseUrl, sessionWorkerConfig } from '../../src/dbos/index.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';

describe('dbosSystemDatabaseUrl', () => {
  const setting = (url: string) => new URL(url).searchParams.get('options');

  it("sets DBOS's default limit (60 s) at connection start, keeping the URL's other options", () => {
    expect(setting(dbosSystemDatabaseUrl('postgres://u@db:5432/chat'))).toBe('-c idle_in_transaction_session_timeout=60000');
    expect(setting(dbosSystemDatabaseUrl('postgres://u@db/chat?sslmode=require&options=-c%20search_path%3Dapp', 5_000))).toBe('-c search_path=app -c idle_in_transaction_session_timeout=5000');
    expect(new URL(dbosSystemDatabaseUrl('postgres://u:p%40ss@db/chat?sslmode=require')).searchParams.get('sslmode')).toBe('require');
    expect(dbosSystemDatabaseUrl('postgres://u:p%40ss@db/chat')).toMatch(/^postgres:\/\/u:p%40ss@db\/chat\?/);
  });

  it("leaves the URL alone when it sets the limit already, when the limit is off (0: the server's own), or when it is no URL", () => {
    const set = 'postgres://u@db/chat?options=-c%20idle_in_transaction_session_timeout%3D1000';
    expect(dbosSystemDatabaseUrl(set)).toBe(set);
    expect(dbosSystemDatabaseUrl('postgres://u@db/chat', 0)).toBe('postgres://u@db/chat');
    expect(dbosSystemDatabaseUrl('host=db dbname=chat')).toBe('host=db dbname=chat');
  });

  it("is what sessionWorkerConfig gives DBOS, with the config's own limit", () => {
    expect(sessionWorkerConfig({ name: 'w', systemDatabaseUrl: 'postgres://u@db/chat' }).systemDatabaseUrl).toBe(dbosSystemDatabaseUrl('postgres://u@db/chat'));
    expect(sessionWorkerConfig({ name: 'w', systemDatabaseUrl: 'postgres://u@db/chat', systemDatabaseIdleTransactionTimeoutMs: 0 }).systemDatabaseUrl).toBe('postgres://u@db/chat');
    expect(sessionWorkerConfig({ name: 'w' })).not.toHaveProperty('systemDatabaseUrl');
  });
});

const postgresBin = postgresBinary();

describe.skipIf(postgresBin === undefined)('DBOS on the system database URL', () => {
  let server: PostgresServer;
  let databaseUrl: string;

  beforeAll(async () => {
    server = await startPostgres(postgresBin!);
    databaseUrl = await server.createDatabase('dbos_url');
    await DBOS.migrate(databaseUrl);
  }, 60_000);
  afterAll(() => server?.stop());

  it('a connection made from it has the limit set by the server', async () => {
    const client = new pg.Client({ connectionString: dbosSystemDatabaseUrl(databaseUrl, 45_000) });
    await client.connect();
    try {
      expect((await client.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('45s');
    } finally {
      await client.end();
    }
  });

  it('DBOS launched on it makes pg print no DeprecationWarning, where the bare URL does', async () => {
    // Each in a process of its own: Node prints a deprecation once per process.
    const warnings = async (url: string) => {
      const script = `
        import { DBOS } from '@dbos-inc/dbos-sdk';
        DBOS.setConfig({ name: 'url-test', systemDatabaseUrl: ${JSON.stringify(url)}, logLevel: 'error' });
        await DBOS.launch();
        await DBOS.shutdown();`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect({ code, stderr: stderr.replace(/.*DeprecationWarning.*\n?/g, '') }).toEqual({ code: 0, stderr: expect.not.stringMatching(/Error/) });
      return stderr.match(/DeprecationWarning.*/g) ?? [];
    };
    expect(await warnings(databaseUrl)).toEqual([expect.stringContaining('client.query() when the client is already executing a query')]);
    expect(await warnings(dbosSystemDatabaseUrl(databaseUrl))).toEqual([]);
  }, 60_000);
});
