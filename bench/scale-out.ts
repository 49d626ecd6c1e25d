/**
 * Scale-out figures on a throwaway PostgreSQL (Debian's binaries, as the
 * tests use): the cost of a fenced append as the history grows; agent-steps
 * per second with 1, 2 and 4 worker processes (DBOS, pgStore; the workers of
 * test/fixtures/dbos-worker.ts); and the time from a worker's death to
 * another finishing its session. Skipped, with a row that says so, where
 * PostgreSQL is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { sessionClient } from '../src/dbos/index.js';
import { WorkerFleet } from '../test/support/worker-fleet.js';
import { pgStore } from '../src/postgres/pg-store.js';
import { sessionHeader, type SessionRecord, type SessionStore } from '../src/persistence/session-store.js';
import { findBinary, postgresBinDirs } from '../test/support/external-binary.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { amount, check, measureRounds, median, pairedRatio, ratio, times, type Row } from './support.js';

const message = (index: number): SessionRecord => ({ type: 'message', index, message: { role: 'user', content: `message ${index} `.padEnd(300, 'x') } });

/** A session with `count` messages whose lease `owner` holds; returns one fenced step append (two messages and a checkpoint). */
async function primedSession(store: SessionStore, sessionId: string, count: number): Promise<() => Promise<void>> {
  let version = (await store.create(sessionHeader(sessionId))) as number;
  const lease = await store.leases!.acquire(sessionId, 'bench', 600_000);
  for (let start = 0; start < count; start += 500) {
    const records = Array.from({ length: Math.min(500, count - start) }, (_, offset) => message(start + offset));
    version = (await store.append(sessionId, records, { after: version, epoch: lease.epoch })) as number;
  }
  let next = count;
  let checkpoint = 0;
  return async () => {
    const records: SessionRecord[] = [
      message(next),
      message(next + 1),
      { type: 'checkpoint', id: ++checkpoint, at: new Date().toISOString(), state: 'running.llm.calling', step: checkpoint, messageCount: next + 2, snapshot: { status: 'active' } },
    ];
    next += 2;
    version = (await store.append(sessionId, records, { after: version, epoch: lease.epoch })) as number;
  };
}

export async function scaleOutBench(): Promise<Row[]> {
  const binDir = postgresBinDirs().find((dir) => findBinary({ name: 'postgres', paths: [`${dir}/postgres`] }) !== undefined);
  if (binDir === undefined) return [{ figure: 'scale-out: SKIPPED, PostgreSQL is not installed (apt-get install -y postgresql)', value: '' }];
  const server = await startPostgres(binDir);
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on('error', () => undefined);
  try {
    const store = pgStore(pool);
    const small = await primedSession(store, 'bench-10', 10);
    const large = await primedSession(store, 'bench-1000', 1_000);
    const repeat = (step: () => Promise<void>) => async () => {
      for (let i = 0; i < 20; i++) await step();
    };
    const rounds = await measureRounds(7, { small: repeat(small), large: repeat(large) });
    const micros = (values: number[]) => (median(values) / 20) * 1000;
    const perStep = (values: number[]) => `${micros(values).toFixed(0)} µs/step`;
    const growth = pairedRatio(rounds.large, rounds.small);
    const workers = await workerFigures(server.createDatabase.bind(server));
    return [
      { figure: 'pgStore fenced append (lease epoch checked), 10 messages of history', value: perStep(rounds.small), measure: amount(micros(rounds.small), 'µs', 0) },
      { figure: 'pgStore fenced append, 1,000 messages of history', value: perStep(rounds.large), ratio: `${ratio(growth)} the 10-message cost`, measure: times(growth), target: '<= 1.5x (O(1))', max: 1.5 },
      ...workers,
    ];
  } finally {
    await pool.end();
    await server.stop();
  }
}

/** Sessions of four agent steps (three tool calls and an answer) each. */
const STEPS_PER_SESSION = 4;

async function workerFigures(createDatabase: (name: string) => Promise<string>): Promise<Row[]> {
  // Workers poll the session queue every 100 ms instead of DBOS's default second, so that the figure is the workers' cost, not the poll's.
  process.env.LOOPCHART_QUEUE_POLL_MS = '100';
  const rows: Row[] = [];
  const throughput: number[] = [];
  for (const count of [1, 2, 4]) {
    const databaseUrl = await createDatabase(`workers_${count}`);
    const perSecond = await withFleet(databaseUrl, count, async (fleet, sessions) => {
      const sessionCount = 40;
      const started = performance.now();
      const turns = await Promise.all(Array.from({ length: sessionCount }, (_, i) => sessions.send(`fast-${i}`, { type: 'prompt', prompt: `session fast-${i}` }, 'msg-1')));
      const results = await Promise.all(turns.map((turn) => sessions.turn(turn).getResult()));
      const seconds = (performance.now() - started) / 1000;
      const unfinished = results.filter((result) => result.outcome !== 'completed');
      check(
        unfinished.length === 0,
        `every benchmark session must complete; ${unfinished.length} of ${sessionCount} did not: ${unfinished.map((result) => `${result.outcome ?? 'no outcome'}${result.rejected.length > 0 ? ` (rejected: ${result.rejected.map((input) => input.reason).join(', ')})` : ''}`).join('; ')}`,
      );
      check(fleet.workers.length === count, 'no worker may die');
      return (sessionCount * STEPS_PER_SESSION) / seconds;
    });
    throughput.push(perSecond);
    rows.push({
      figure: `agent-steps per second, ${count} worker process${count > 1 ? 'es' : ''} (40 sessions of 4 steps, DBOS + pgStore, queue polled every 100 ms)`,
      value: `${perSecond.toFixed(0)} steps/s`,
      measure: amount(perSecond, 'steps/s', 0),
      ...(count > 1 ? { ratio: `${ratio(perSecond / throughput[0]!)} one worker` } : {}),
    });
  }
  const databaseUrl = await createDatabase('worker_death');
  const takeover = await withFleet(databaseUrl, 2, async (fleet, sessions) => {
    const turn = await sessions.send('kill-tool-fast', { type: 'prompt', prompt: 'session kill-tool-fast' }, 'msg-1');
    const holder = await fleet.lineFrom(/^BLOCKED tool kill-tool-fast$/);
    const killed = performance.now();
    await fleet.kill(holder);
    const result = await sessions.turn(turn).getResult();
    check(result.outcome === 'completed', 'the session of the dead worker must complete');
    return performance.now() - killed;
  });
  rows.push({
    figure: "a worker's death to another completing its session (heartbeat 250 ms, dead after 1.5 s, lease 1.5 s)",
    value: `${(takeover / 1000).toFixed(2)} s`,
    measure: amount(takeover / 1000, 's', 2),
  });
  return rows;
}

async function withFleet<T>(databaseUrl: string, count: number, work: (fleet: WorkerFleet, sessions: ReturnType<typeof sessionClient>) => Promise<T>): Promise<T> {
  await DBOS.migrate(databaseUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-bench-workers-'));
  const fleet = new WorkerFleet({ databaseUrl, dir });
  const client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
  try {
    await Promise.all(Array.from({ length: count }, () => fleet.ready(fleet.start())));
    return await work(fleet, sessionClient(client));
  } finally {
    await fleet.killAll();
    await client.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
