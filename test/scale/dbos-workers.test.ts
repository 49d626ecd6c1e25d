/**
 * Scale-out end to end: three worker processes (DBOS Transact, pgStore) on a
 * throwaway Postgres; the worker that holds a session is SIGKILLed while
 * calling the model, while streaming, inside a tool and while the session
 * waits for approval, and another worker completes the session. See
 * test/fixtures/dbos-worker.ts for the workers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgControlChannel, sessionClient, type SessionClient } from '../../src/dbos/index.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { expectValidHistory } from '../support/history.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { redisServerBinary, startRedis, type RedisServer } from '../support/redis-server.js';
import { WorkerFleet } from '../support/worker-fleet.js';
import { createClient } from 'redis';
import { keptText, readSessionEvents, type StreamedEvent } from '../../src/redis/index.js';

const postgresBin = postgresBinary();
/** With Redis, the workers publish their events and the tests check what a client would show. */
const redisBin = redisServerBinary();

describe.skipIf(postgresBin === undefined)('sessions on DBOS workers', () => {
  let server: PostgresServer;
  let redisServer: RedisServer | undefined;
  let databaseUrl: string;
  let dir: string;
  let pool: pg.Pool;
  let client: DBOSClient;
  let sessions: SessionClient;
  let fleet: WorkerFleet;

  beforeAll(async () => {
    server = await startPostgres(postgresBin!);
    if (redisBin !== undefined) redisServer = await startRedis(redisBin);
    databaseUrl = await server.createDatabase('loopchart');
    dir = mkdtempSync(path.join(tmpdir(), 'loopchart-dbos-'));
    // The system database's schema once, before the workers (launches running migrations at once race on the DDL).
    await DBOS.migrate(databaseUrl);
    fleet = new WorkerFleet({ databaseUrl, dir, ...(redisServer ? { redisUrl: redisServer.url } : {}) });
    await Promise.all([fleet.start(), fleet.start(), fleet.start()].map((worker) => fleet.ready(worker)));
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool.on('error', () => undefined);
    client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    sessions = sessionClient(client, { control: pgControlChannel(pool) });
  }, 120_000);

  afterAll(async () => {
    await fleet?.killAll();
    await client?.destroy();
    await pool?.end();
    await server?.stop();
    await redisServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** The turn's summary; on a hang, what every worker printed and where the turn stands, instead of a bare timeout. */
  async function resultOf(turn: string) {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void client.retrieveWorkflow(turn).getStatus().then((status) => {
          reject(new Error(`turn ${turn} did not end (${JSON.stringify(status)}):\n${fleet.workers.map((worker) => `${worker.id}: ${worker.lines.join(' | ')}`).join('\n')}`));
        });
      }, 90_000);
    });
    try {
      return await Promise.race([sessions.turn(turn).getResult(), hung]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The lines the workers wrote to a log file in the shared directory. */
  const readLines = (file: string) => {
    try {
      return readFileSync(path.join(dir, file), 'utf8').split('\n').filter((line) => line !== '');
    } catch {
      return [];
    }
  };

  /** Resolves once `condition` holds, asking again every 50 ms. */
  async function until(condition: () => Promise<boolean>): Promise<void> {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** The session's history is valid, ends with the final text, and each tool call ran exactly once. */
  async function expectCompleted(sessionId: string): Promise<void> {
    const log = await pgStore(pool).read(sessionId);
    const { messages } = replaySession(log!.records);
    await expectValidHistory(messages);
    expect(JSON.stringify(messages.at(-1))).toContain('All work done.');
    const executions = readFileSync(path.join(dir, 'executions'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${sessionId} `))
      .map((line) => line.split(' ')[1]);
    expect(executions.sort()).toEqual(['call-1', 'call-2', 'call-3']);
    if (redisServer) expect([...keptText(await streamedEvents(sessionId)).values()]).toEqual(['Step 1.Step 2.Step 3.All work done.']);
  }

  /** Everything the workers published for the session, as a browser would read it, up to the first event of type `until`. */
  async function streamedEvents(sessionId: string, until: StreamedEvent['event']['type'] = 'run-end'): Promise<StreamedEvent[]> {
    const reader = createClient({ url: redisServer!.url });
    reader.on('error', () => undefined);
    await reader.connect();
    const entries: StreamedEvent[] = [];
    const abort = new AbortController();
    try {
      for await (const { entry } of readSessionEvents({ redis: reader, sessionId, blockMs: 200, signal: abort.signal })) {
        entries.push(entry);
        if (entry.event.type === until) abort.abort();
      }
    } finally {
      await reader.quit();
    }
    return entries;
  }

  for (const phase of ['calling', 'streaming', 'tool'] as const) {
    it(`a worker killed while ${phase} is replaced by another, which completes the session; every tool runs once`, async () => {
      const sessionId = `kill-${phase}`;
      const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
      const holder = await fleet.lineFrom(new RegExp(`^BLOCKED ${phase} ${sessionId}$`));
      await fleet.kill(holder);
      fleet.start();
      await fleet.lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
      await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
      const summary = await resultOf(turn);
      expect(summary).toMatchObject({ status: 'idle', outcome: 'completed', text: 'All work done.', rejected: [] });
      await expectCompleted(sessionId);
    }, 120_000);
  }

  it('a worker SIGSTOPped in a tool past its lease, resumed after another completed the session, makes no model call, starts no tool and writes nothing more', async () => {
    const sessionId = 'pause-tool-fast';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    const paused = await fleet.lineFrom(new RegExp(`^PAUSED-IN-TOOL ${sessionId}$`));
    fleet.pause(paused);
    try {
      // Its lease lapses and its turn is handed on: another worker runs the session to its end.
      expect(await resultOf(turn)).toMatchObject({ status: 'idle', outcome: 'completed', text: 'All work done.' });
    } finally {
      fleet.resume(paused);
    }
    const store = pgStore(pool);
    const records = JSON.stringify((await store.read(sessionId))!.records);
    const byPaused = (file: string) => readLines(file).filter((line) => line.startsWith(`${sessionId} ${paused.id} `));
    const callsBefore = byPaused('model-calls');
    const startsBefore = byPaused('tool-starts');
    const effectsOfPaused = () => readLines('executions').filter((line) => line.startsWith(`${sessionId} `) && line.endsWith(` ${paused.id}`));
    const effectsBefore = effectsOfPaused();
    expect(effectsBefore).toHaveLength(1);
    // Its tool returns at once: the next thing it would do is the next model call.
    writeFileSync(path.join(dir, `release-${sessionId}`), '');
    // Resumed, it learns that it lost the lease and stops the run it was in (saying nothing more: its
    // events are no longer the session's); its engine tries the step again, and that attempt finds
    // the session done, holds the lease a moment and lets it go.
    await until(async () => {
      const lease = await pool.query<{ owner: string; expires_at: string }>('SELECT owner, expires_at FROM loopchart_session_leases WHERE session_id = $1', [sessionId]);
      return lease.rows[0]?.owner.startsWith(`${paused.id}/`) === true && Number(lease.rows[0].expires_at) === 0;
    });
    expect(byPaused('model-calls')).toEqual(callsBefore);
    expect(byPaused('tool-starts')).toEqual(startsBefore);
    expect(effectsOfPaused()).toEqual(effectsBefore);
    expect(JSON.stringify((await store.read(sessionId))!.records)).toBe(records);
    const { messages } = replaySession((await store.read(sessionId))!.records);
    await expectValidHistory(messages);
    expect(JSON.stringify(messages.at(-1))).toContain('All work done.');
    if (redisServer) expect([...keptText(await streamedEvents(sessionId)).values()]).toEqual(['Step 1.Step 2.Step 3.All work done.']);
  }, 120_000);

  it('a worker killed while its session waits for approval: another applies the answer, once', async () => {
    const sessionId = 'wait-approval';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await fleet.lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
    // What the browser saw of the steps before the wait is in Redis (the turn's step waits for it).
    if (redisServer) await streamedEvents(sessionId, 'approval-request');
    const status = await client.retrieveWorkflow(turn).getStatus();
    const holder = fleet.workers.find((worker) => worker.id === status?.executorId)!;
    await fleet.kill(holder);
    fleet.start();
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1'); // an engine's retry
    expect(await resultOf(turn)).toMatchObject({ outcome: 'completed', rejected: [] });
    await expectCompleted(sessionId);
  }, 120_000);

  it('an abort sent from another node stops the run mid-tool on the worker that runs it', async () => {
    const sessionId = 'slow-abort';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await fleet.lineFrom(new RegExp(`^SLOW ${sessionId}$`));
    expect(await sessions.activeTurn(sessionId)).toBe(turn);
    await sessions.send(sessionId, { type: 'abort', reason: 'the user pressed stop' }, 'abort-1');
    expect(await resultOf(turn)).toMatchObject({ status: 'idle', outcome: 'aborted' });
    expect(await sessions.activeTurn(sessionId)).toBeUndefined();
  }, 120_000);

  it('a turn held by a worker killed before its first heartbeat (no row to claim) is handed on by a live worker and completes', async () => {
    await Promise.all(fleet.workers.slice().map((worker) => fleet.stop(worker)));
    const silent = await fleet.ready(fleet.start({ LOOPCHART_TEST_NO_HEARTBEAT: '1' }));
    const sessionId = 'never-beat';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await fleet.lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
    // What the browser saw of the steps before the wait is in Redis (the turn's step waits for it).
    if (redisServer) await streamedEvents(sessionId, 'approval-request');
    expect((await client.retrieveWorkflow(turn).getStatus())?.executorId).toBe(silent.id);
    await fleet.kill(silent);
    const live = fleet.start();
    await fleet.lineFrom(new RegExp(`^RECOVERED ${silent.id} ${turn}$`));
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
    expect(await resultOf(turn)).toMatchObject({ outcome: 'completed', rejected: [] });
    await expectCompleted(sessionId);
    await fleet.ready(live);
    fleet.start();
    fleet.start();
  }, 120_000);

  it('an approval answered while no worker runs is applied when a worker comes back', async () => {
    const sessionId = 'no-worker';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await fleet.lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
    await Promise.all(fleet.workers.slice().map((worker) => fleet.stop(worker)));
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
    // A turn no worker has taken yet (ENQUEUED) is the session's active turn too: the answer waits
    // in its mailbox instead of becoming a turn queued behind the one that waits for it.
    const queuedId = 'queued-no-worker';
    const queued = await sessions.send(queuedId, { type: 'prompt', prompt: `session ${queuedId}` }, 'msg-1');
    expect((await client.retrieveWorkflow(queued).getStatus())?.status).toBe('ENQUEUED');
    expect(await sessions.send(queuedId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1')).toBe(queued);
    fleet.start();
    fleet.start();
    fleet.start();
    expect(await resultOf(turn)).toMatchObject({ outcome: 'completed' });
    await expectCompleted(sessionId);
    expect(await resultOf(queued)).toMatchObject({ outcome: 'completed', rejected: [] });
    await expectCompleted(queuedId);
  }, 120_000);
});
