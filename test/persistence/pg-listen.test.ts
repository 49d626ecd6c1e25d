/**
 * LISTEN/NOTIFY is written once (`listenOn`): `watchSession` and `pgControlChannel` listen through
 * it, so a connection that breaks is handled the same way by both: said once, never a crash.
 */
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pgControlChannel } from '../../src/dbos/pg-control-channel.js';
import { listenOn } from '../../src/persistence/pg-listen.js';
import { watchSession } from '../../src/postgres/pg-session-watch.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { sessionHeader } from '../../src/persistence/session-store.js';
import type { SessionInput } from '../../src/scale/session-request.js';
import { usePostgresForTests } from '../support/postgres-pools.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const postgres = usePostgresForTests();
const newPool = postgres.newPool;

/**
 * A pool whose connections go through a TCP proxy in front of the server: `stall()` makes them stop
 * answering (no reset, no error) until `heal()`; the proxy is healed and closed when the test ends.
 */
async function proxiedPool(): Promise<{ pool: pg.Pool; stall(): void; heal(): Promise<void> }> {
  const proxy = await startTcpProxy({ port: postgres.server().port });
  const server = postgres.server();
  const pool = newPool(server.url.replace(`:${server.port}/`, `:${proxy.port}/`));
  let stalled: Promise<void> | undefined;
  const heal = async () => {
    proxy.heal();
    await stalled;
  };
  onTestFinished(async () => {
    await heal();
    await proxy.close();
  });
  return { pool, stall: () => void (stalled ??= proxy.stall(600_000)), heal };
}

/** Ends every other connection that listens on `channel`, as a server restart or a proxy would. */
async function cutListeners(pool: pg.Pool, channel: string): Promise<number> {
  const { rowCount } = await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`, [`LISTEN ${channel}`]);
  return rowCount ?? 0;
}

/** Resolves with the first value `next` gives that `accept` takes. */
function until<T>(subscribe: (next: (value: T) => void) => void, accept: (value: T) => boolean): Promise<T> {
  return new Promise((resolve) => subscribe((value) => accept(value) && resolve(value)));
}

describe.skipIf(postgres.binary === undefined)('listenOn', () => {
  it('hears what is notified on its channel once it resolves, and gives its connection back when stopped', async () => {
    const pool = newPool();
    const heard: string[] = [];
    const listening = await listenOn(pool, 'test_channel', { onNotification: (payload) => heard.push(payload), onBroken: () => undefined });
    expect(pool.totalCount - pool.idleCount).toBe(1);
    await pool.query(`SELECT pg_notify('other_channel', 'no')`);
    await pool.query(`SELECT pg_notify('test_channel', 'yes')`);
    await expect.poll(() => heard).toEqual(['yes']);
    await listening.stop();
    await listening.stop();
    expect(pool.totalCount - pool.idleCount).toBe(0);
    await pool.query(`SELECT pg_notify('test_channel', 'after')`);
    const { rows } = await pool.query<{ count: string }>(`SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN test_channel' AND state <> 'idle'`);
    expect(rows[0]!.count).toBe('0');
    expect(heard).toEqual(['yes']);
  });

  it('says a cut connection once, drops it, and the process goes on', async () => {
    const pool = newPool();
    const broken: Error[] = [];
    const listening = await listenOn(pool, 'cut_channel', { onNotification: () => undefined, onBroken: (error) => broken.push(error) });
    expect(await cutListeners(newPool(), 'cut_channel')).toBe(1);
    await expect.poll(() => broken.length).toBe(1);
    await listening.stop();
    expect(pool.totalCount).toBe(0);
  });
});

describe.skipIf(postgres.binary === undefined)('listenOn on a connection that stops answering (a stall: no reset, no error)', () => {
  it('says it once as broken when a heartbeat goes unanswered, and a new LISTEN is refused within a heartbeat', async () => {
    const { pool, stall } = await proxiedPool();
    const broken = new Promise<Error>((resolve) => {
      void listenOn(pool, 'stalled_channel', { onNotification: () => undefined, onBroken: resolve }, { heartbeatMs: 100 }).then((listening) => {
        stall();
        return broken.then(() => listening.stop());
      });
    });
    expect((await broken).message).toBe('the LISTEN connection did not answer SELECT 1 within 100 ms');
    // Listening again through the stalled proxy is refused within a heartbeat, not awaited for ever.
    await expect(listenOn(pool, 'other_channel', { onNotification: () => undefined, onBroken: () => undefined }, { heartbeatMs: 100 })).rejects.toThrow(
      'no connection to listen on within 100 ms',
    );
  });

  it('stop() gives the UNLISTEN up after a heartbeat and drops the connection instead of waiting for ever', async () => {
    const { pool, stall } = await proxiedPool();
    const listening = await listenOn(pool, 'stopped_channel', { onNotification: () => undefined, onBroken: () => undefined }, { heartbeatMs: 300 });
    stall();
    await listening.stop();
    expect(pool.totalCount).toBe(0);
  });

  it('watchSession fails its next read with a clear error instead of showing a stale view for ever', async () => {
    const { pool, stall } = await proxiedPool();
    const store = pgStore(newPool());
    await store.create(sessionHeader('watched-stalled'));
    const views = watchSession({ pool, store, sessionId: 'watched-stalled', heartbeatMs: 300 });
    await views.next();
    const failing = expect(views.next()).rejects.toThrow(/watching session watched-stalled: the connection to Postgres broke \(the LISTEN connection did not answer SELECT 1 within 300 ms\)/);
    stall();
    await failing;
  });

  it('pgControlChannel listens again once the connection answers, and delivers what is published then', async () => {
    const { pool, stall, heal } = await proxiedPool();
    let connects = 0;
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    pool.connect = (() => (connects++, connect())) as typeof pool.connect;
    const channel = pgControlChannel(pool, { heartbeatMs: 100 });
    const publisher = pgControlChannel(newPool());
    const received: Array<(input: SessionInput) => void> = [];
    const unsubscribe = await channel.subscribe('chat-stalled', (input) => received.forEach((hear) => hear(input)));
    stall();
    const heard = until<SessionInput>((next) => received.push(next), (input) => input.type === 'abort');
    // Published until the channel listens again (through the proxy once it forwards again): what is sent meanwhile is lost live, as documented.
    const publishing = setInterval(() => void publisher.publish('chat-stalled', { type: 'abort' }, 'abort-1').catch(() => undefined), 50);
    try {
      // Stalled until a heartbeat goes unanswered: the listening connection is dropped and the channel tries to listen again.
      await expect.poll(() => connects, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      await heal();
      await expect(heard).resolves.toEqual({ type: 'abort' });
    } finally {
      clearInterval(publishing);
      unsubscribe();
      await channel.close();
      await publisher.close();
    }
  });
});

describe.skipIf(postgres.binary === undefined)('the users of listenOn', () => {
  it('watchSession fails its next read with a clear error when its connection is cut', async () => {
    const pool = newPool();
    const store = pgStore(pool);
    await store.create(sessionHeader('watched-cut'));
    const views = watchSession({ pool, store, sessionId: 'watched-cut' });
    await views.next();
    const failing = expect(views.next()).rejects.toThrow(/watching session watched-cut: the connection to Postgres broke/);
    expect(await cutListeners(newPool(), 'loopchart_session_changed')).toBe(1);
    await failing;
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('pgControlChannel listens again after its connection is cut, and delivers what is published then', async () => {
    const pool = newPool();
    const channel = pgControlChannel(pool);
    const received: Array<(input: SessionInput) => void> = [];
    const unsubscribe = await channel.subscribe('chat-1', (input) => received.forEach((hear) => hear(input)));
    expect(await cutListeners(newPool(), 'loopchart_session_control')).toBe(1);
    // Published until the channel listens again: what is sent meanwhile is lost live, as documented.
    const heard = until<SessionInput>((next) => received.push(next), (input) => input.type === 'abort');
    const publishing = setInterval(() => void channel.publish('chat-1', { type: 'abort' }, 'abort-1').catch(() => undefined), 50);
    try {
      await expect(heard).resolves.toEqual({ type: 'abort' });
    } finally {
      clearInterval(publishing);
      unsubscribe();
      await channel.close();
    }
  });
});
