/**
 * Reads what the soak checks, over connections of its own that bypass the proxies: every
 * session's records (the store), every turn with its input and summary (DBOS), every session's
 * Redis stream, and the observation files the workers wrote.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import type { SessionInput } from '../../src/scale/advance-session.js';
import { SESSION_TURN_WORKFLOW, type TurnSummary } from '../../src/dbos/session-workflows.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { decodeStreamedEvent, sessionEventsKey } from '../../src/redis/index.js';
import type { FinalState, TurnState, WorkerObservation } from './soak-observations.js';

/** What the soak needs of a connected `redis` client. */
export interface StreamReader {
  xRange(key: string, start: string, end: string): Promise<Array<{ id: string; message: Record<string, string> }> | null>;
}

/** Every turn workflow (or those with one of these statuses), with the session, input and request id it was started with. */
export async function readTurns(client: DBOSClient, status?: Array<'PENDING' | 'ENQUEUED' | 'SUCCESS' | 'ERROR' | 'CANCELLED'>): Promise<TurnState[]> {
  const workflows = await client.listWorkflows({ workflowName: SESSION_TURN_WORKFLOW, loadInput: true, loadOutput: true, ...(status ? { status } : {}) });
  return workflows.map((workflow) => {
    const [sessionId, input, requestId] = (workflow.input ?? []) as [string, SessionInput, string];
    const summary = workflow.output as TurnSummary | undefined;
    return {
      workflowId: workflow.workflowID,
      sessionId,
      requestId,
      inputType: input?.type ?? '?',
      status: workflow.status,
      ...(summary ? { rejected: summary.rejected, ...(summary.outcome !== undefined ? { outcome: summary.outcome } : {}) } : {}),
      ...(workflow.error !== undefined && workflow.error !== null ? { error: errorText(workflow.error) } : {}),
    };
  });
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export async function readFinalState(options: { pool: pg.Pool; client: DBOSClient; redis: StreamReader; sessionIds: string[]; drained: boolean }): Promise<FinalState> {
  const store = pgStore(options.pool);
  const sessions = await Promise.all(options.sessionIds.map(async (sessionId) => ({ sessionId, records: (await store.read(sessionId))?.records })));
  const streams = await Promise.all(
    options.sessionIds.map(async (sessionId) => {
      const entries = (await options.redis.xRange(sessionEventsKey(sessionId), '-', '+')) ?? [];
      return {
        sessionId,
        entries: entries.flatMap(({ id, message }) => {
          if (message.entry === undefined) return [];
          const { epoch, event } = decodeStreamedEvent(message.entry);
          return [{ id, epoch, type: event.type }];
        }),
      };
    }),
  );
  return { sessions, turns: await readTurns(options.client), streams, drained: options.drained };
}

/** Every line of every worker's observations file (a last line cut by a SIGKILL is left out). */
export function readWorkerObservations(dir: string): WorkerObservation[] {
  const observations: WorkerObservation[] = [];
  for (const name of readdirSync(dir)) {
    if (!/^observations-.*\.jsonl$/.test(name)) continue;
    const lines = readFileSync(path.join(dir, name), 'utf8').split('\n').filter((line) => line.trim() !== '');
    lines.forEach((line, index) => {
      try {
        observations.push(JSON.parse(line) as WorkerObservation);
      } catch (error) {
        // Only the last line can be cut short, by a SIGKILL in the middle of writing it.
        if (index < lines.length - 1) throw new Error(`${name}, line ${index + 1}: not JSON`, { cause: error });
      }
    });
  }
  return observations.sort((a, b) => a.t - b.t);
}
