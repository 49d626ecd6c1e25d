/**
 * One soak run: a throwaway Postgres and Redis, a TCP proxy in front of each, worker processes
 * (test/soak/soak-worker.ts) and a web node (`sessionClient`) connecting through the proxies;
 * the seed's schedule of inputs and faults carried out; a quiet period in which the proxies are
 * whole, every slot has a worker, and the approvals still waiting are answered, until every turn
 * has ended (or time runs out); then what the store, DBOS, Redis and the workers' observation
 * files hold is read over direct connections and checked (`checkSoak`). Everything it started is
 * stopped and removed at the end.
 *
 * @example
 * const run = await runSoak({ seed: 7, durationMs: 60_000, sessions: 40, workers: 3, postgresBin, redisBin, log: console.log });
 * if (run.verdict.violations.length > 0) process.exitCode = 1;
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { createClient } from 'redis';
import { pgControlChannel, sessionClient } from '../../src/dbos/index.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { readSessionView } from '../../src/persistence/session-view.js';
import { startPostgres } from '../support/postgres-server.js';
import { startRedis } from '../support/redis-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { WorkerFleet } from '../support/worker-fleet.js';
import { checkSoak, type SoakVerdict } from './soak-checks.js';
import { readFinalState, readTurns, readWorkerObservations } from './soak-collect.js';
import { InputSender } from './soak-inputs.js';
import type { HarnessLog } from './soak-observations.js';
import { describeAction, formatSchedule, soakSchedule, type SoakAction, type SoakSchedule } from './soak-schedule.js';
import { WorkerSlots } from './soak-workers.js';

const SOAK_WORKER = fileURLToPath(new URL('./soak-worker.ts', import.meta.url));

export interface SoakRunOptions {
  seed: number;
  durationMs: number;
  sessions: number;
  workers: number;
  /** Debian's PostgreSQL server programs (`postgresBinary()`) and `redis-server`. */
  postgresBin: string;
  redisBin: string;
  /** The workers' lease TTL: longer than the longest cut, so that a cut alone never costs a worker its lease. Default 5,000 ms. */
  leaseTtlMs?: number;
  /** How long a silent worker is taken for alive (longer than the longest cut). Default 8,000 ms. */
  deadAfterMs?: number;
  /** How long the quiet period may last before the checks run on what is there. Default 120,000 ms. */
  quietTimeoutMs?: number;
  /** Progress: the schedule at the start, each fault as it happens, workers that die. */
  log?: (line: string) => void;
  /** Keep the run's directory (the workers' observation files, and everything the checks read in observations.json) instead of removing it. */
  keepDir?: boolean;
}

export interface SoakRun {
  schedule: SoakSchedule;
  verdict: SoakVerdict;
  /** Whether every turn ended before the quiet period's time ran out. */
  drained: boolean;
  /** The run's directory, when kept. */
  dir?: string;
  elapsedMs: number;
}

export async function runSoak(options: SoakRunOptions): Promise<SoakRun> {
  const begun = Date.now();
  const log = options.log ?? (() => undefined);
  const leaseTtlMs = options.leaseTtlMs ?? 5_000;
  const deadAfterMs = options.deadAfterMs ?? 8_000;
  const schedule = soakSchedule({ seed: options.seed, durationMs: options.durationMs, sessions: options.sessions, workers: options.workers, leaseTtlMs, deadAfterMs });
  for (const line of formatSchedule(schedule)) log(line);
  const cleanups: Array<() => Promise<unknown> | void> = [];
  try {
    const postgres = await startPostgres(options.postgresBin);
    cleanups.push(() => postgres.stop());
    const redis = await startRedis(options.redisBin);
    cleanups.push(() => redis.stop());
    const databaseUrl = await postgres.createDatabase('soak');
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-soak-'));
    if (!options.keepDir) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await DBOS.migrate(databaseUrl);

    const proxies = {
      postgres: await startTcpProxy({ port: postgres.port }),
      redis: await startTcpProxy({ port: Number(new URL(redis.url).port) }),
    };
    cleanups.push(() => proxies.postgres.close(), () => proxies.redis.close());
    const proxiedDatabaseUrl = withPort(databaseUrl, proxies.postgres.port);
    const harness: HarnessLog = { startedAt: 0, workers: [], kills: [], pauses: [], windows: [], sends: [] };
    const fleet = new WorkerFleet({
      databaseUrl: proxiedDatabaseUrl,
      dir,
      redisUrl: withPort(redis.url, proxies.redis.port),
      fixture: SOAK_WORKER,
      env: {
        LOOPCHART_SOAK_LEASE_TTL_MS: String(leaseTtlMs),
        LOOPCHART_SOAK_DEAD_AFTER_MS: String(deadAfterMs),
        LOOPCHART_SOAK_HEARTBEAT_MS: '500',
        LOOPCHART_QUEUE_POLL_MS: '250',
        // A worker that dies says where its warnings came from (pg warns of queries overlapping on one client).
        NODE_OPTIONS: [process.env.NODE_OPTIONS, '--trace-deprecation'].filter(Boolean).join(' '),
      },
    });
    const elapsed = () => `+${((Date.now() - harness.startedAt) / 1000).toFixed(3)} s`;
    const slots = new WorkerSlots(fleet, harness, options.workers, (line) => log(`${elapsed()}  ${line}`));
    cleanups.push(() => slots.stopAll());
    await slots.startAll();

    // The web node, through the proxies.
    const webPool = new pg.Pool({ connectionString: proxiedDatabaseUrl, max: 4, connectionTimeoutMillis: 2_000 });
    webPool.on('error', () => undefined);
    cleanups.push(() => webPool.end());
    const webClient = await DBOSClient.create({ systemDatabaseUrl: proxiedDatabaseUrl, systemDatabasePool: webPool });
    cleanups.push(() => webClient.destroy());
    const sender = new InputSender(sessionClient(webClient, { control: pgControlChannel(webPool) }), harness);

    // The observer, direct.
    const observerPool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    observerPool.on('error', () => undefined);
    cleanups.push(() => observerPool.end());
    const observerClient = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    cleanups.push(() => observerClient.destroy());
    const observerRedis = createClient({ url: redis.url });
    observerRedis.on('error', () => undefined);
    await observerRedis.connect();
    cleanups.push(() => observerRedis.quit());

    harness.startedAt = Date.now();
    log(`${elapsed()}  ${options.workers} workers ready; the schedule starts`);
    const perform = (action: SoakAction): Promise<unknown> => {
      if (action.kind === 'input') return sender.send(action.sessionId, action.requestId, action.input);
      log(`${elapsed()}  ${describeAction(action)}`);
      if (action.kind === 'kill') return slots.kill(action.slot, action.restartAfterMs);
      if (action.kind === 'pause') return slots.pause(action.slot, action.forMs);
      return cutOrStall(proxies[action.target], action, harness);
    };
    await Promise.all(schedule.actions.map((action) => delay(harness.startedAt + action.at - Date.now()).then(() => perform(action))));
    log(`${elapsed()}  the schedule is done; quiet period`);
    await slots.settle();
    await sender.settled();

    const drained = await drain({ observerClient, store: pgStore(observerPool), sender, deadline: Date.now() + (options.quietTimeoutMs ?? 120_000) });
    log(`${elapsed()}  ${drained ? 'every turn ended' : 'turns still in progress when the quiet period ran out'}; checking`);
    const final = await readFinalState({ pool: observerPool, client: observerClient, redis: observerRedis, sessionIds: schedule.sessionIds, drained });
    const observations = { leaseTtlMs, harness, workers: readWorkerObservations(dir), final };
    if (options.keepDir) writeFileSync(path.join(dir, 'observations.json'), JSON.stringify(observations, null, 1));
    const verdict = checkSoak(observations);
    return { schedule, verdict, drained, ...(options.keepDir ? { dir } : {}), elapsedMs: Date.now() - begun };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // Stopping what is already gone: the rest still has to stop.
      }
    }
  }
}

async function cutOrStall(proxy: TcpProxy, action: Extract<SoakAction, { kind: 'cut' | 'stall' }>, harness: HarnessLog): Promise<void> {
  const from = Date.now();
  if (action.kind === 'cut') await proxy.cut(action.forMs, action.mode);
  else await proxy.stall(action.forMs);
  harness.windows.push({ target: action.target, kind: action.kind, ...(action.kind === 'cut' ? { mode: action.mode } : {}), from, to: Date.now() });
}

/**
 * The quiet period: until no turn is in progress and no input is being sent, answers (approves)
 * each call that still waits in a session with a turn in progress, once. False when the
 * deadline passes first.
 */
async function drain(options: { observerClient: DBOSClient; store: ReturnType<typeof pgStore>; sender: InputSender; deadline: number }): Promise<boolean> {
  const answered = new Set<string>();
  for (;;) {
    const active = (await readTurns(options.observerClient, ['PENDING', 'ENQUEUED'])).filter((turn) => turn.status === 'PENDING' || turn.status === 'ENQUEUED');
    if (active.length === 0 && options.sender.idle) return true;
    if (Date.now() > options.deadline) return false;
    for (const sessionId of new Set(active.map((turn) => turn.sessionId))) {
      const view = await readSessionView(options.store, sessionId);
      for (const { toolCallId } of view?.pendingApprovals ?? []) {
        const key = `${sessionId} ${toolCallId}`;
        if (answered.has(key)) continue;
        answered.add(key);
        void options.sender.send(sessionId, `${sessionId}:drain:${toolCallId}`, { type: 'approve', toolCallId });
      }
    }
    await delay(500);
  }
}

function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
