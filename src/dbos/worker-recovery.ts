import { DBOS, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { answerWithin } from '../core/answer-within.js';
import { tolerant } from '../core/app-handler.js';
import { tolerateIdleConnectionErrors } from '../postgres/pg-connection-errors.js';

export interface WorkerRecoveryOptions {
  /** A pool on the database that holds the heartbeats (loopchart's or DBOS's system database). */
  pool: Pool;
  /** This worker's DBOS executor ID (`DBOS.executorID`): unique per process. */
  executorID: string;
  /** The application version whose workflows this worker can run (the session format's). */
  applicationVersion: string;
  /** How often this worker says it is alive: a whole number of ms from 1 to 2^31-1. Default 1,000 ms. */
  heartbeatMs?: number;
  /** A worker silent this long is dead: its pending workflows are handed to the queue again. A whole number of ms from 1 to 2^31-1. Default 10,000 ms. */
  deadAfterMs?: number;
  /** Called for each dead worker whose workflows were handed on. */
  onRecovered?: (deadExecutorID: string, workflowIDs: string[]) => void;
  /** A beat that failed, or was not over within half of `deadAfterMs`; the next beat tries again. A throw of it is swallowed. */
  onError?: (error: unknown) => void;
}

/**
 * `startWorkerRecovery`'s options, checked whole before the first beat: a misspelt one is refused,
 * not ignored, and a time a timer cannot keep (0 or NaN would beat every millisecond and count
 * every worker dead at once) is refused naming it.
 */
const workerRecoveryOptionsSchema = z.strictObject({
  pool: z.custom<Pool>((value) => typeof (value as Partial<Pool> | null)?.connect === 'function', { message: 'expected a pg Pool' }),
  executorID: z.string().min(1),
  applicationVersion: z.string().min(1),
  heartbeatMs: timerMsSchema.optional(),
  deadAfterMs: timerMsSchema.optional(),
  onRecovered: functionOption<NonNullable<WorkerRecoveryOptions['onRecovered']>>().optional(),
  onError: functionOption<(error: unknown) => void>().optional(),
});

/** The advisory lock key one worker at a time holds while it sweeps for orphaned workflows ('lcor' in ASCII). */
const ORPHAN_SWEEP_LOCK = 0x6c636f72;

/** Hands pending workflows back to their queues (`DBOS.resumeWorkflows` with each one's own queue, so the per-session order holds), where any worker dequeues them. */
async function handOn(workflows: WorkflowStatus[]): Promise<void> {
  const byQueue = new Map<string | undefined, string[]>();
  for (const workflow of workflows) byQueue.set(workflow.queueName, [...(byQueue.get(workflow.queueName) ?? []), workflow.workflowID]);
  for (const [queueName, ids] of byQueue) await DBOS.resumeWorkflows(ids, queueName !== undefined ? { queueName } : {});
}

/**
 * Heartbeats, and recovery of a dead worker's workflows by the live ones.
 * DBOS recovers a process's pending workflows when a process with the same
 * executor ID starts again; a worker that never comes back needs another to
 * take its work. Every worker writes a heartbeat to `loopchart_workers`; one
 * that finds another silent for `deadAfterMs` claims it (a `DELETE …
 * RETURNING` of rows no other live worker has locked, so one live worker claims
 * each dead one) and hands its pending workflows back to their queues
 * (`DBOS.resumeWorkflows`), where any worker dequeues them; each resumes from
 * its last completed step. The claim commits only once the workflows are handed
 * on: when the handoff fails, the dead worker is claimed again by a later beat.
 * A beat runs on a connection of its own and is given up (the connection
 * dropped, its claim rolled back) when not over within half of `deadAfterMs`;
 * a tick that comes while one still runs is skipped, and `stop()` settles
 * even when Postgres stops answering. `stop()` marks
 * this worker silent, so what is still pending here (runs waiting for a person)
 * moves to a live worker at once. A worker declared
 * dead that was only paused cannot harm the session: its lease has moved on,
 * so its writes are refused (`LeaseLostError`).
 *
 * @example
 * ```ts
 * const recovery = startWorkerRecovery({ pool, executorID: DBOS.executorID, applicationVersion: SESSION_APPLICATION_VERSION });
 * // …
 * await recovery.stop();
 * ```
 */
export function startWorkerRecovery(options: WorkerRecoveryOptions): { stop(): Promise<void> } {
  parseOptions('startWorkerRecovery', workerRecoveryOptionsSchema, options);
  const { pool, executorID, applicationVersion } = options;
  // An idle connection that breaks (a restart, a proxy) is an 'error' event on the pool, which would end the process unheard.
  tolerateIdleConnectionErrors(pool, options.onError);
  // A throw of the app's handler would be an unhandled rejection of the beat, which ends the process.
  const onError = tolerant(options.onError ?? (() => undefined));
  const heartbeatMs = options.heartbeatMs ?? 1_000;
  const deadAfterMs = options.deadAfterMs ?? 10_000;
  /** A beat given up by then leaves the next one time to say this worker is alive before the others count it dead. */
  const beatWithinMs = deadAfterMs / 2;
  const now = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
  let tableExists = false;
  /** When this worker last looked for orphans (`sweepOrphans`); it looks once per `deadAfterMs`. */
  let sweptAt = -Infinity;
  const sweepDue = () => {
    if (performance.now() - sweptAt < deadAfterMs) return false;
    sweptAt = performance.now();
    return true;
  };
  /**
   * Pending workflows of workers that have no heartbeat row at all: a worker killed after its queue
   * dequeued a turn but before its first beat (a slow start), or a paused worker whose row was
   * claimed and that was killed after it woke and dequeued, before its next beat wrote the row
   * again. No claim can find those, since there is no row to claim. One pending this long
   * (`deadAfterMs`, by the database's clock) whose worker has no row is handed on; one just dequeued
   * is left to its worker, whose first beat is on its way. One worker sweeps at a time (an advisory
   * lock held to the end of the beat's transaction), so two cannot both hand on the same workflow,
   * the second after a live worker had dequeued it again.
   */
  const sweepOrphans = async (client: PoolClient): Promise<Array<[string, string[]]>> => {
    const lock = await client.query<{ held: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS held', [ORPHAN_SWEEP_LOCK]);
    if (!lock.rows[0]?.held) return [];
    // The rows before the workflows: a worker that beat after this read dequeued its workflows since, too recently to be swept.
    const known = await client.query<{ executors: string[]; now: string }>(`SELECT array(SELECT executor_id FROM loopchart_workers) AS executors, ${now} AS now`);
    const withRow = new Set(known.rows[0]!.executors);
    const pendingSince = Number(known.rows[0]!.now) - deadAfterMs;
    const pending = await DBOS.listWorkflows({ status: 'PENDING', applicationVersion, loadInput: false, loadOutput: false });
    const orphans = new Map<string, WorkflowStatus[]>();
    for (const workflow of pending) {
      const owner = workflow.executorId;
      if (owner === undefined || owner === executorID || withRow.has(owner) || (workflow.updatedAt ?? workflow.createdAt) > pendingSince) continue;
      orphans.set(owner, [...(orphans.get(owner) ?? []), workflow]);
    }
    const handedOn: Array<[string, string[]]> = [];
    for (const [owner, workflows] of orphans) {
      await handOn(workflows);
      handedOn.push([owner, workflows.map((workflow) => workflow.workflowID)]);
    }
    return handedOn;
  };
  const beatOn = async (client: PoolClient) => {
    if (!tableExists) {
      // Once per worker; workers creating it at the same moment may collide, and the insert below tells.
      await client.query(`CREATE TABLE IF NOT EXISTS loopchart_workers (executor_id text PRIMARY KEY, application_version text NOT NULL, last_seen_ms bigint NOT NULL)`).catch(() => undefined);
      tableExists = true;
    }
    await client.query(
      `INSERT INTO loopchart_workers (executor_id, application_version, last_seen_ms) VALUES ($1, $2, ${now})
       ON CONFLICT (executor_id) DO UPDATE SET last_seen_ms = EXCLUDED.last_seen_ms, application_version = EXCLUDED.application_version`,
      [executorID, applicationVersion],
    );
    await client.query('BEGIN');
    const dead = await client.query<{ executor_id: string }>(
      `DELETE FROM loopchart_workers WHERE executor_id IN (
         SELECT executor_id FROM loopchart_workers WHERE executor_id <> $1 AND application_version = $2 AND last_seen_ms < ${now} - $3 FOR UPDATE SKIP LOCKED
       ) RETURNING executor_id`,
      [executorID, applicationVersion, deadAfterMs],
    );
    const handedOn: Array<[string, string[]]> = [];
    for (const { executor_id: deadExecutor } of dead.rows) {
      const pending = await DBOS.listWorkflows({ executorId: deadExecutor, status: 'PENDING', applicationVersion, loadInput: false, loadOutput: false });
      await handOn(pending);
      handedOn.push([deadExecutor, pending.map((workflow) => workflow.workflowID)]);
    }
    if (sweepDue()) handedOn.push(...(await sweepOrphans(client)));
    await client.query('COMMIT');
    for (const [deadExecutor, ids] of handedOn) options.onRecovered?.(deadExecutor, ids);
  };
  const beat = async () => {
    let client: PoolClient | undefined;
    let gaveUp: Error | undefined;
    // A cut connection fails the next query; the error event alone would end the process.
    const onConnectionError = () => undefined;
    const work = (async () => {
      const connected = await pool.connect();
      connected.on('error', onConnectionError);
      if (gaveUp) return connected.release(gaveUp);
      client = connected;
      await beatOn(connected);
    })();
    try {
      await answerWithin(work, beatWithinMs, () => new Error(`worker ${executorID}: a heartbeat was not over within ${beatWithinMs} ms (half of deadAfterMs)`));
    } catch (error) {
      gaveUp = error instanceof Error ? error : new Error(String(error));
      // Dropped, not given back: the server rolls back a claim in flight, and a connection that stopped answering is not used again.
      client?.release(gaveUp);
      throw error;
    }
    client?.off('error', onConnectionError);
    client?.release();
  };
  let beating: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || beating) return;
    beating = beat()
      .catch(onError)
      .finally(() => (beating = undefined));
  };
  const timer = setInterval(tick, heartbeatMs);
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await beating;
      // Silent from now on: a live worker takes over at once what is still pending here (runs waiting for approval).
      const silent = pool.query('UPDATE loopchart_workers SET last_seen_ms = 0 WHERE executor_id = $1', [executorID]);
      await answerWithin(silent, beatWithinMs, () => new Error('unanswered')).catch(() => undefined);
    },
  };
}
