/**
 * Scale-out figures on a throwaway PostgreSQL (Debian's binaries, as the
 * tests use): the cost of a fenced append as the history grows. Skipped, with
 * a row that says so, where PostgreSQL is not installed.
 */
import pg from 'pg';
import { pgStore } from '../src/persistence/pg-store.js';
import { sessionHeader, type SessionRecord, type SessionStore } from '../src/persistence/session-store.js';
import { findBinary, postgresBinDirs } from '../test/support/external-binary.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { measureRounds, median, pairedRatio, ratio, type Row } from './support.js';

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
    const perStep = (values: number[]) => `${((median(values) / 20) * 1000).toFixed(0)} µs/step`;
    const growth = pairedRatio(rounds.large, rounds.small);
    return [
      { figure: 'pgStore fenced append (lease epoch checked), 10 messages of history', value: perStep(rounds.small) },
      { figure: 'pgStore fenced append, 1,000 messages of history', value: perStep(rounds.large), ratio: `${ratio(growth)} the 10-message cost`, target: '<= 1.5x (O(1))', ok: growth <= 1.5 },
    ];
  } finally {
    await pool.end();
    await server.stop();
  }
}
