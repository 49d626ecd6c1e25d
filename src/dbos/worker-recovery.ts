import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Pool } from 'pg';

export interface WorkerRecoveryOptions {
  /** A pool on the database that holds the heartbeats (loopchart's or DBOS's system database). */
  pool: Pool;
  /** This worker's DBOS executor ID (`DBOS.executorID`): unique per process. */
  executorID: string;
  /** The application version whose workflows this worker can run (the session format's). */
  applicationVersion: string;
  /** How often this worker says it is alive. Default 1,000 ms. */
  heartbeatMs?: number;
  /** A worker silent this long is dead: its pending workflows are handed to the queue again. Default 10,000 ms. */
  deadAfterMs?: number;
  /** Called for each dead worker whose workflows were handed on. */
  onRecovered?: (deadExecutorID: string, workflowIDs: string[]) => void;
  onError?: (error: unknown) => void;
}

/**
 * Heartbeats, and recovery of a dead worker's workflows by the live ones.
 * DBOS recovers a process's pending workflows when a process with the same
 * executor ID starts again; a worker that never comes back needs another to
 * take its work. Every worker writes a heartbeat to `loopchart_workers`; one
 * that finds another silent for `deadAfterMs` claims it (a `DELETE …
 * RETURNING`, so one live worker claims each dead one) and hands its pending
 * workflows back to their queues (`DBOS.resumeWorkflows`), where any worker
 * dequeues them; each resumes from its last completed step. `stop()` marks
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
  const heartbeatMs = options.heartbeatMs ?? 1_000;
  const deadAfterMs = options.deadAfterMs ?? 10_000;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let tableExists = false;
  const beat = async () => {
    const { pool, executorID } = options;
    if (!tableExists) {
      // Once per worker; workers creating it at the same moment may collide, and the insert below tells.
      await pool.query(`CREATE TABLE IF NOT EXISTS loopchart_workers (executor_id text PRIMARY KEY, application_version text NOT NULL, last_seen_ms bigint NOT NULL)`).catch(() => undefined);
      tableExists = true;
    }
    const now = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
    await pool.query(
      `INSERT INTO loopchart_workers (executor_id, application_version, last_seen_ms) VALUES ($1, $2, ${now})
       ON CONFLICT (executor_id) DO UPDATE SET last_seen_ms = EXCLUDED.last_seen_ms, application_version = EXCLUDED.application_version`,
      [executorID, options.applicationVersion],
    );
    const dead = await pool.query<{ executor_id: string }>(
      `DELETE FROM loopchart_workers WHERE executor_id <> $1 AND application_version = $2 AND last_seen_ms < ${now} - $3 RETURNING executor_id`,
      [executorID, options.applicationVersion, deadAfterMs],
    );
    for (const { executor_id: deadExecutor } of dead.rows) {
      const pending = await DBOS.listWorkflows({ executorId: deadExecutor, status: 'PENDING', applicationVersion: options.applicationVersion });
      const byQueue = new Map<string | undefined, string[]>();
      for (const workflow of pending) byQueue.set(workflow.queueName, [...(byQueue.get(workflow.queueName) ?? []), workflow.workflowID]);
      for (const [queueName, ids] of byQueue) await DBOS.resumeWorkflows(ids, queueName !== undefined ? { queueName } : {});
      options.onRecovered?.(deadExecutor, pending.map((workflow) => workflow.workflowID));
    }
  };
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(beat).catch((error: unknown) => options.onError?.(error));
  }, heartbeatMs);
  running = beat().catch((error: unknown) => options.onError?.(error));
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      // Silent from now on: a live worker takes over at once what is still pending here (runs waiting for approval).
      await options.pool.query('UPDATE loopchart_workers SET last_seen_ms = 0 WHERE executor_id = $1', [options.executorID]).catch(() => undefined);
    },
  };
}
