/**
 * `startWorkerRecovery` against a real Postgres, with DBOS's two calls (`listWorkflows`,
 * `resumeWorkflows`) stubbed: a dead worker stays claimable until its workflows are handed on,
 * one live worker claims it, and a database that stops answering neither piles beats up nor holds
 * `stop()`. Each test uses an application version of its own, so their workers never meet.
 * (Recovery with real workers: test/scale/dbos-workers.test.ts.)
 */
import { DBOS, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startWorkerRecovery, type WorkerRecoveryOptions } from '../../src/dbos/worker-recovery.js';
import { usePostgresForTests } from '../support/postgres-pools.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const postgres = usePostgresForTests();
const newPool = postgres.newPool;
afterEach(() => vi.restoreAllMocks());

/** A worker that beat once and then stopped: silent, so dead to the others at once. Its one beat's sweep finds no workflow. */
async function deadWorker(pool: pg.Pool, executorID: string, applicationVersion: string): Promise<void> {
  const listed = noWorkflows();
  await startWorkerRecovery({ pool, executorID, applicationVersion, heartbeatMs: 50, deadAfterMs: 20_000 }).stop();
  listed.mockRestore();
}

/** A live worker, stopped when the test ends. */
function liveWorker(options: Omit<WorkerRecoveryOptions, 'heartbeatMs' | 'deadAfterMs'> & Partial<WorkerRecoveryOptions>) {
  const recovery = startWorkerRecovery({ heartbeatMs: 50, deadAfterMs: 20_000, ...options });
  onTestFinished(() => recovery.stop());
  return recovery;
}

/** DBOS without a workflow: the sweep for orphans finds none (and DBOS need not be launched). */
const noWorkflows = () => vi.spyOn(DBOS, 'listWorkflows').mockResolvedValue([]);

const pendingWorkflow = (workflowID: string) => ({ workflowID, queueName: 'loopchart_sessions' }) as WorkflowStatus;

describe.skipIf(postgres.binary === undefined)('startWorkerRecovery', () => {
  it('claims a dead worker again on a later beat when handing its workflows on failed', async () => {
    const pool = newPool();
    await deadWorker(pool, 'gone-1', 'v-handoff');
    let listings = 0;
    // The dead worker's workflows; the sweep for orphans (no executorId asked for) finds none.
    const listed = vi.spyOn(DBOS, 'listWorkflows').mockImplementation(async (input) => {
      if (input.executorId === undefined) return [];
      if (listings++ === 0) throw new Error('the system database did not answer');
      return [pendingWorkflow('wf-1')];
    });
    const resumed = vi.spyOn(DBOS, 'resumeWorkflows').mockResolvedValue([]);
    const errors: unknown[] = [];
    const recovered = new Promise<[string, string[]]>((resolve) =>
      liveWorker({ pool, executorID: 'live-1', applicationVersion: 'v-handoff', onError: (error) => errors.push(error), onRecovered: (dead, ids) => resolve([dead, ids]) }),
    );
    expect(await recovered).toEqual(['gone-1', ['wf-1']]);
    expect(errors).toEqual([new Error('the system database did not answer')]);
    expect(listed.mock.calls.filter(([input]) => input.executorId === 'gone-1')).toHaveLength(2);
    expect(resumed).toHaveBeenCalledExactlyOnceWith(['wf-1'], { queueName: 'loopchart_sessions' });
    const { rows } = await pool.query(`SELECT executor_id FROM loopchart_workers WHERE application_version = 'v-handoff'`);
    expect(rows).toEqual([{ executor_id: 'live-1' }]);
  });

  it('lets one live worker claim a dead one while another beats on, and hands its workflows on once', async () => {
    const pool = newPool();
    await deadWorker(pool, 'gone-2', 'v-race');
    let handOn: (workflows: WorkflowStatus[]) => void = () => undefined;
    let listing: () => void = () => undefined;
    const listingStarted = new Promise<void>((resolve) => (listing = resolve));
    // The dead worker's listing waits for the test; any other (the sweep, or a live worker claimed once stop() made it silent) finds nothing.
    const listed = vi.spyOn(DBOS, 'listWorkflows').mockImplementation((input) => {
      if (input.executorId !== 'gone-2') return Promise.resolve([]);
      listing();
      return new Promise((resolve) => (handOn = resolve));
    });
    const claimListings = () => listed.mock.calls.filter(([input]) => input.executorId === 'gone-2');
    vi.spyOn(DBOS, 'resumeWorkflows').mockResolvedValue([]);
    const recoveries: Array<[string, string[]]> = [];
    let recoveredOnce: () => void = () => undefined;
    const recovered = new Promise<void>((resolve) => (recoveredOnce = resolve));
    const onRecovered = (dead: string, ids: string[]) => {
      recoveries.push([dead, ids]);
      recoveredOnce();
    };
    // The holder's beat is given up after half of deadAfterMs: long enough here for a loaded machine to see the other beat meanwhile.
    const first = liveWorker({ pool, executorID: 'live-a', applicationVersion: 'v-race', onRecovered, deadAfterMs: 120_000 });
    const second = liveWorker({ pool, executorID: 'live-b', applicationVersion: 'v-race', onRecovered, deadAfterMs: 120_000 });
    await listingStarted;
    // The worker that holds the claim waits for its handoff; the other beats on, looking for dead workers each time.
    const { rows } = await pool.query<{ now: string }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now`);
    const claimed = Number(rows[0]!.now);
    await expect
      .poll(async () => {
        const beatSince = await pool.query(`SELECT executor_id FROM loopchart_workers WHERE application_version = 'v-race' AND last_seen_ms > $1`, [claimed + 200]);
        return beatSince.rowCount;
      }, { timeout: 30_000 })
      .toBe(1);
    expect(claimListings()).toHaveLength(1);
    handOn([pendingWorkflow('wf-2')]);
    await recovered;
    // stop() marks a worker silent, so the other may claim it while stopping too: that claim hands nothing on.
    await Promise.all([first.stop(), second.stop()]);
    expect(recoveries.filter(([, ids]) => ids.length > 0)).toEqual([['gone-2', ['wf-2']]]);
    expect(claimListings()).toHaveLength(1);
  });

  /** DBOS's two calls over a table of workflows: `resumeWorkflows` makes a pending one enqueued, as DBOS does. */
  function workflowTable(workflows: Array<Pick<WorkflowStatus, 'workflowID' | 'executorId' | 'updatedAt'>>) {
    const table = new Map(workflows.map((workflow) => [workflow.workflowID, { ...workflow, status: 'PENDING', queueName: 'loopchart_sessions', createdAt: 0 } as WorkflowStatus]));
    const listed = vi.spyOn(DBOS, 'listWorkflows').mockImplementation(async (input) =>
      [...table.values()].filter((workflow) => workflow.status === input.status && (input.executorId === undefined || workflow.executorId === input.executorId)),
    );
    const resumed = vi.spyOn(DBOS, 'resumeWorkflows').mockImplementation(async (ids) => {
      for (const id of ids) table.set(id, { ...table.get(id)!, status: 'ENQUEUED' });
      return [];
    });
    return { listed, resumed };
  }

  const databaseNow = async (pool: pg.Pool) => Number((await pool.query<{ now: string }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now`)).rows[0]!.now);

  it('hands on the pending workflow of a worker that never beat (killed after its queue dequeued, before its first heartbeat), and leaves a just dequeued one and one of a worker that beats', async () => {
    const pool = newPool();
    const now = await databaseNow(pool);
    const { resumed } = workflowTable([
      { workflowID: 'wf-orphan', executorId: 'never-beat', updatedAt: now - 60_000 },
      { workflowID: 'wf-just-dequeued', executorId: 'starting-up', updatedAt: now + 60_000 },
      { workflowID: 'wf-of-a-live-worker', executorId: 'beating', updatedAt: now - 60_000 },
    ]);
    const recoveries: Array<[string, string[]]> = [];
    liveWorker({ pool, executorID: 'beating', applicationVersion: 'v-orphan', onRecovered: (dead, ids) => recoveries.push([dead, ids]) });
    liveWorker({ pool, executorID: 'sweeper', applicationVersion: 'v-orphan', onRecovered: (dead, ids) => recoveries.push([dead, ids]) });
    await expect.poll(() => recoveries, { timeout: 30_000 }).toEqual([['never-beat', ['wf-orphan']]]);
    await expect.poll(async () => (await pool.query(`SELECT 1 FROM loopchart_workers WHERE executor_id = 'sweeper'`)).rowCount, { timeout: 30_000 }).toBe(1);
    expect(resumed).toHaveBeenCalledExactlyOnceWith(['wf-orphan'], { queueName: 'loopchart_sessions' });
  });

  it('lets one worker at a time sweep for orphans: two sweeping at once hand an orphan on once', async () => {
    const pool = newPool();
    const { listed, resumed } = workflowTable([{ workflowID: 'wf-lone', executorId: 'killed-early', updatedAt: 0 }]);
    const sweeps = () => listed.mock.calls.filter(([input]) => input.executorId === undefined);
    const list = listed.getMockImplementation()!;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first sweep waits, holding its lock, until the second worker has beaten meanwhile.
    listed.mockImplementationOnce(async (input) => {
      await released;
      return list(input);
    });
    liveWorker({ pool, executorID: 'sweeper-a', applicationVersion: 'v-one-sweep' });
    await expect.poll(() => sweeps().length, { timeout: 30_000 }).toBe(1);
    const since = await databaseNow(pool);
    liveWorker({ pool, executorID: 'sweeper-b', applicationVersion: 'v-one-sweep' });
    await expect
      .poll(async () => (await pool.query(`SELECT 1 FROM loopchart_workers WHERE executor_id = 'sweeper-b' AND last_seen_ms > $1`, [since])).rowCount, { timeout: 30_000 })
      .toBe(1);
    release();
    await expect.poll(() => resumed.mock.calls.length, { timeout: 30_000 }).toBe(1);
    expect(resumed).toHaveBeenCalledExactlyOnceWith(['wf-lone'], { queueName: 'loopchart_sessions' });
    expect(sweeps()).toHaveLength(1);
  });

  it('gives a beat up when Postgres stops answering, skips the ticks meanwhile, and stop() settles', async () => {
    noWorkflows();
    const proxy = await startTcpProxy({ port: postgres.server().port });
    const pool = newPool(postgres.server().url.replace(`:${postgres.server().port}/`, `:${proxy.port}/`));
    onTestFinished(async () => {
      proxy.heal();
      await proxy.close();
    });
    let connects = 0;
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
    pool.connect = ((...args: unknown[]) => (connects++, connect(...args))) as typeof pool.connect;
    let failed: (error: unknown) => void = () => undefined;
    const firstError = new Promise<unknown>((resolve) => (failed = resolve));
    const recovery = liveWorker({ pool, executorID: 'live-stalled', applicationVersion: 'v-stall', deadAfterMs: 2_000, onError: (error) => failed(error) });
    const direct = newPool();
    await expect
      .poll(async () => (await direct.query(`SELECT 1 FROM loopchart_workers WHERE executor_id = 'live-stalled'`).catch(() => ({ rowCount: 0 }))).rowCount, { timeout: 30_000 })
      .toBe(1);
    void proxy.stall(600_000);
    const connectsAtStall = connects;
    expect(await firstError).toEqual(new Error('worker live-stalled: a heartbeat was not over within 1000 ms (half of deadAfterMs)'));
    // Twenty ticks came meanwhile; at most the beat under way at the stall and the one that stalled took a connection.
    expect(connects - connectsAtStall).toBeLessThanOrEqual(2);
    await recovery.stop();
  });

  it("an idle connection the server cuts reaches onError, not the process: the pool's 'error' event is listened to", async () => {
    noWorkflows();
    const pool = new pg.Pool({ connectionString: postgres.server().url, max: 2 });
    onTestFinished(() => pool.end());
    const errors: unknown[] = [];
    const recovery = liveWorker({ pool, executorID: 'live-cut', applicationVersion: 'v-cut', heartbeatMs: 60_000, onError: (error) => errors.push(error) });
    const direct = newPool();
    await expect.poll(async () => (await direct.query(`SELECT 1 FROM loopchart_workers WHERE executor_id = 'live-cut'`)).rowCount, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => pool.idleCount, { timeout: 30_000 }).toBeGreaterThan(0);
    await direct.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND application_name = '' AND state = 'idle' AND backend_type = 'client backend'`);
    await expect.poll(() => errors.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await recovery.stop();
  });
});

