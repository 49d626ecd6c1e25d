/**
 * Scale-out end to end: three worker processes (DBOS Transact, pgStore) on a
 * throwaway Postgres; the worker that holds a session is SIGKILLed while
 * calling the model, while streaming, inside a tool and while the session
 * waits for approval, and another worker completes the session. See
 * test/fixtures/dbos-worker.ts for the workers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgControlChannel, sessionClient, type SessionClient } from '../../src/dbos/index.js';
import { pgStore } from '../../src/persistence/pg-store.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { expectValidHistory } from '../support/history.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { redisServerBinary, startRedis, type RedisServer } from '../support/redis-server.js';
import { createClient } from 'redis';
import { keptText, readSessionEvents, type StreamedEvent } from '../../src/redis/index.js';

const FIXTURE = path.resolve('test/fixtures/dbos-worker.ts');
const postgresBin = postgresBinary();
/** With Redis, the workers publish their events and the tests check what a client would show. */
const redisBin = redisServerBinary();

interface Worker {
  id: string;
  process: ChildProcess;
  lines: string[];
}

describe.skipIf(postgresBin === undefined)('sessions on DBOS workers', () => {
  let server: PostgresServer;
  let redisServer: RedisServer | undefined;
  let databaseUrl: string;
  let dir: string;
  let pool: pg.Pool;
  let client: DBOSClient;
  let sessions: SessionClient;
  const workers: Worker[] = [];
  const waiters = new Set<() => void>();
  let started = 0;

  function startWorker(): Worker {
    const id = `worker-${++started}`;
    const env = { ...process.env, ...(redisServer ? { LOOPCHART_TEST_REDIS_URL: redisServer.url } : {}) };
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, databaseUrl, dir, id], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const worker: Worker = { id, process: child, lines: [] };
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      worker.lines.push(...parts);
      for (const wake of [...waiters]) wake();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      if (signal === null && code !== 0) worker.lines.push(`EXITED ${code} ${stderr}`);
      for (const wake of [...waiters]) wake();
    });
    workers.push(worker);
    return worker;
  }

  /** The first worker that printed a line matching `pattern` (waiting for it). */
  function lineFrom(pattern: RegExp, timeoutMs = 60_000): Promise<Worker> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = workers.find((worker) => worker.lines.some((line) => pattern.test(line)));
        const crashed = workers.find((worker) => worker.lines.some((line) => line.startsWith('EXITED')));
        if (crashed) reject(new Error(`${crashed.id} crashed: ${crashed.lines.join('\n')}`));
        else if (found) resolve(found);
        else return;
        waiters.delete(check);
        clearTimeout(timer);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no worker printed ${pattern} in ${timeoutMs} ms:\n${workers.map((worker) => `${worker.id}: ${worker.lines.join(' | ')}`).join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  }

  async function kill(worker: Worker): Promise<void> {
    const exited = new Promise((resolve) => worker.process.once('exit', resolve));
    worker.process.kill('SIGKILL');
    await exited;
    workers.splice(workers.indexOf(worker), 1);
  }

  async function stop(worker: Worker): Promise<void> {
    const exited = new Promise((resolve) => worker.process.once('exit', resolve));
    worker.process.kill('SIGTERM');
    await exited;
    workers.splice(workers.indexOf(worker), 1);
  }

  beforeAll(async () => {
    server = await startPostgres(postgresBin!);
    if (redisBin !== undefined) redisServer = await startRedis(redisBin);
    databaseUrl = await server.createDatabase('loopchart');
    dir = mkdtempSync(path.join(tmpdir(), 'loopchart-dbos-'));
    // The system database's schema once, before the workers (launches running migrations at once race on the DDL).
    await DBOS.migrate(databaseUrl);
    const ready = [startWorker(), startWorker(), startWorker()].map((worker) => lineFrom(new RegExp(`^READY ${worker.id}$`)));
    await Promise.all(ready);
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool.on('error', () => undefined);
    client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    sessions = sessionClient(client, { control: pgControlChannel(pool) });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.filter((worker) => worker.process.exitCode === null && worker.process.signalCode === null).map((worker) => kill(worker)));
    await client?.destroy();
    await pool?.end();
    await server?.stop();
    await redisServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

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
      const holder = await lineFrom(new RegExp(`^BLOCKED ${phase} ${sessionId}$`));
      await kill(holder);
      startWorker();
      await lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
      await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
      const summary = await sessions.turn(turn).getResult();
      expect(summary).toMatchObject({ status: 'idle', outcome: 'completed', text: 'All work done.', rejected: [] });
      await expectCompleted(sessionId);
    }, 120_000);
  }

  it('a worker killed while its session waits for approval: another applies the answer, once', async () => {
    const sessionId = 'wait-approval';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
    // What the browser saw of the steps before the wait is in Redis (the turn's step waits for it).
    if (redisServer) await streamedEvents(sessionId, 'approval-request');
    const status = await client.retrieveWorkflow(turn).getStatus();
    const holder = workers.find((worker) => worker.id === status?.executorId)!;
    await kill(holder);
    startWorker();
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1'); // an engine's retry
    expect(await sessions.turn(turn).getResult()).toMatchObject({ outcome: 'completed', rejected: [] });
    await expectCompleted(sessionId);
  }, 120_000);

  it('an abort sent from another node stops the run mid-tool on the worker that runs it', async () => {
    const sessionId = 'slow-abort';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await lineFrom(new RegExp(`^SLOW ${sessionId}$`));
    expect(await sessions.activeTurn(sessionId)).toBe(turn);
    await sessions.send(sessionId, { type: 'abort', reason: 'the user pressed stop' }, 'abort-1');
    expect(await sessions.turn(turn).getResult()).toMatchObject({ status: 'idle', outcome: 'aborted' });
    expect(await sessions.activeTurn(sessionId)).toBeUndefined();
  }, 120_000);

  it('an approval answered while no worker runs is applied when a worker comes back', async () => {
    const sessionId = 'no-worker';
    const turn = await sessions.send(sessionId, { type: 'prompt', prompt: `session ${sessionId}` }, 'msg-1');
    await lineFrom(new RegExp(`^AWAITING ${sessionId}$`));
    await Promise.all(workers.slice().map((worker) => stop(worker)));
    await sessions.send(sessionId, { type: 'approve', toolCallId: 'call-3' }, 'approve-1');
    startWorker();
    startWorker();
    startWorker();
    expect(await sessions.turn(turn).getResult()).toMatchObject({ outcome: 'completed' });
    await expectCompleted(sessionId);
  }, 120_000);
});
