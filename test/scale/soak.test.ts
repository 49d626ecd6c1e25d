/**
 * A short run of the scale-out soak (`npm run soak`, test/soak/): three worker processes on a
 * throwaway Postgres and Redis behind TCP proxies, 25 s of inputs to 12 sessions with workers
 * SIGKILLed and SIGSTOPped and every connection to Postgres and Redis cut or stalled, a quiet
 * period, then the checks. Seed 36's schedule has every kind of fault and of input.
 */
import { describe, expect, it } from 'vitest';
import { postgresBinary } from '../support/postgres-server.js';
import { redisServerBinary } from '../support/redis-server.js';
import { formatSoakRun } from '../soak/soak-report.js';
import { runSoak } from '../soak/soak-run.js';

const postgresBin = postgresBinary();
const redisBin = redisServerBinary();

describe.skipIf(postgresBin === undefined || redisBin === undefined)('the scale-out soak, short', () => {
  it('kills, pauses and cuts leave every effect once (or again only after a kill, pause or cut), every input applied or rejected, every history valid, every session terminal and no epoch going down', async () => {
    const run = await runSoak({ seed: 36, durationMs: 25_000, sessions: 12, workers: 3, postgresBin: postgresBin!, redisBin: redisBin! });
    const report = formatSoakRun(run).join('\n');
    expect(run.verdict.violations, report).toEqual([]);
    // The faults happened and the sessions did work through them.
    expect(run.verdict.counts, report).toMatchObject({ workersKilled: 1, pauses: 1, cuts: 2, stalls: 2, sessionsTerminal: 12, historiesValid: 12 });
    expect(run.verdict.counts.inputsApplied, report).toBeGreaterThan(20);
    expect(run.verdict.counts.effects, report).toBeGreaterThan(20);
  }, 400_000);
});
