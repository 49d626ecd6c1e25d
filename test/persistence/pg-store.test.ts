import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgStore } from '../../src/postgres/pg-store.js';
import { watchSession } from '../../src/postgres/pg-session-watch.js';
import { createAgent } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { SessionFormatError, sessionHeader } from '../../src/persistence/session-store.js';
import { expectValidHistory } from '../support/history.js';
import { mockModel } from '../support/mock-model.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { addTool } from '../support/tools.js';
import { sessionStoreContract } from './store-contract.js';

const postgresBin = postgresBinary();
let server: PostgresServer | undefined;
const pools: pg.Pool[] = [];
const newPool = () => {
  const pool = new pg.Pool({ connectionString: server!.url, max: 10 });
  // An idle connection closed by the server's shutdown at the end is expected, not a failure.
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
};

beforeAll(async () => {
  if (postgresBin !== undefined) server = await startPostgres(postgresBin);
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

sessionStoreContract(
  'pgStore',
  () => ({
    store: pgStore(newPool()),
    // Another worker: its own pool, so its own connections.
    sameDataElsewhere: () => pgStore(newPool()),
    deleteBehindItsBack: async (sessionId) => {
      await newPool().query('DELETE FROM loopchart_sessions WHERE session_id = $1', [sessionId]);
    },
  }),
  { skip: postgresBin === undefined },
);

describe.skipIf(postgresBin === undefined)('pgStore on its own', () => {
  it('refuses a session of another format version by name', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('future-session'));
    await pool.query(`UPDATE loopchart_sessions SET header = json_build_object('type','header','format','loopchart-session','version',99,'sessionId','future-session') WHERE session_id = 'future-session'`);
    await expect(store.read('future-session')).rejects.toBeInstanceOf(SessionFormatError);
  });

  it('refuses a record row that is JSON null or not a record, naming the session and the record, instead of skipping or misreading it', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('hand-edited'));
    await store.append('hand-edited', [{ type: 'message', index: 0, message: { role: 'user', content: 'hi' } }]);
    await pool.query(`UPDATE loopchart_session_records SET record = 'null'::json WHERE session_id = 'hand-edited'`);
    await expect(store.read('hand-edited')).rejects.toThrow(new SessionFormatError('session hand-edited (Postgres), record 1: not a session record (an object with a type), but null'));
    await pool.query(`UPDATE loopchart_session_records SET record = '{"type":"message","index":"0","message":{"role":"user","content":"hi"}}'::json WHERE session_id = 'hand-edited'`);
    await expect(store.read('hand-edited')).rejects.toThrow(/^session hand-edited \(Postgres\), record 1: a message record this loopchart cannot read: index: Invalid input: expected number, received string$/);
  });

  it('refuses a session whose record rows do not run 1 to its record count (a row deleted or added by hand), naming the session', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('gapped'));
    const user = (content: string) => ({ type: 'message' as const, index: 0, message: { role: 'user' as const, content } });
    await store.append('gapped', [user('a'), user('b'), user('c')]);
    await pool.query(`DELETE FROM loopchart_session_records WHERE session_id = 'gapped' AND seq = 2`);
    await expect(store.read('gapped')).rejects.toThrow(new SessionFormatError('session gapped (Postgres): record 2 is missing (it counts 3 records, seq 1 to 3): a row was deleted or added by hand'));
    await pool.query(`INSERT INTO loopchart_session_records (session_id, seq, record) VALUES ('gapped', 2, $1), ('gapped', 4, $1)`, [JSON.stringify(user('x'))]);
    await expect(store.read('gapped')).rejects.toThrow(new SessionFormatError('session gapped (Postgres): record 4 is beyond its record count (it counts 3 records, seq 1 to 3): a row was deleted or added by hand'));
  });

  it('warns of a header that names another session than its row', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('row-id'));
    await pool.query(`UPDATE loopchart_sessions SET header = $1 WHERE session_id = 'row-id'`, [JSON.stringify(sessionHeader('header-id'))]);
    expect((await store.read('row-id'))?.warnings).toEqual(['session row-id (Postgres): its header names session "header-id", not "row-id": the row was changed by hand; it is read as session row-id']);
  });

  it('lets a reader without Redis follow a session: a new view after the appends of each step', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('watched'));
    const abort = new AbortController();
    const views = watchSession({ pool, store, sessionId: 'watched', signal: abort.signal });
    expect((await views.next()).value).toMatchObject({ messages: [], isRunning: false });
    const agent = createAgent({ model: scriptedModel([{ text: 'Hi.' }]), store: pgStore(newPool()), sessionId: 'watched' });
    const run = agent.run('hello');
    let seen = 1;
    for (;;) {
      const { value } = await views.next();
      seen++;
      if (value && !value.isRunning && value.messages.length === 2) break;
    }
    expect((await run).outcome).toBe('completed');
    expect(seen).toBeGreaterThan(1);
    abort.abort();
    await views.return(undefined);
    await agent.dispose();
  });

  it('creates its tables once when many stores start at the same time, in the schema it is given', async () => {
    const stores = Array.from({ length: 6 }, () => pgStore(newPool(), { schema: 'tenant_a' }));
    await Promise.all(stores.map((store, index) => store.create(sessionHeader(`schema-${index}`))));
    const { rows } = await newPool().query<{ count: string }>(`SELECT count(*) FROM tenant_a.loopchart_sessions`);
    expect(Number(rows[0]!.count)).toBe(6);
    expect(() => pgStore(newPool(), { schema: 'x; DROP TABLE y' })).toThrow(/invalid schema name/);
  });

  it('takes a schema named by a reserved word (it is quoted), and reads back what it wrote there', async () => {
    const store = pgStore(newPool(), { schema: 'user' });
    await store.create(sessionHeader('in-user'));
    expect(await store.read('in-user')).toMatchObject({ records: [] });
    const { rows } = await newPool().query<{ count: string }>(`SELECT count(*) FROM "user".loopchart_sessions`);
    expect(Number(rows[0]!.count)).toBe(1);
  });

  it('a connection that stops answering (no reset, no error) ends the run failed (session-write) when the lease runs out, and dispose completes', async () => {
    const proxy = await startTcpProxy({ port: server!.port });
    const pool = new pg.Pool({ connectionString: server!.url.replace(`:${server!.port}/`, `:${proxy.port}/`), max: 4 });
    pool.on('error', () => undefined);
    let stall: Promise<void> | undefined;
    let stallOver = false;
    try {
      const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]);
      const agent = createAgent({ model, tools: { add: addTool }, store: pgStore(pool), sessionId: 'stalled', lease: { owner: 'worker-a', ttlMs: 1_000 } });
      agent.events$.subscribe((event) => {
        // From the tool's start the database hears nothing and says nothing, for longer than any test runs.
        if (event.type === 'tool-execution-start') stall = proxy.stall(600_000).then(() => void (stallOver = true));
      });
      const result = await agent.run('add 1 and 2');
      await agent.dispose();

      expect(stallOver).toBe(false);
      expect(result.outcome).toBe('failed');
      expect(result.error).toMatchObject({ kind: 'session-write', message: expect.stringMatching(/the store did not answer the renewal within \d+ ms/) });
      await expectValidHistory(result.messages);
    } finally {
      proxy.heal();
      await stall;
      await proxy.close();
      await pool.end();
    }
  });
});
