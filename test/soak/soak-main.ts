/**
 * `npm run soak`: the scale-out soak (see docs/scale-out.md). Options:
 *   --duration SECONDS  how long inputs and faults go on (default 180)
 *   --seed N            the schedule's seed; repeat for several runs (default: one random seed, printed)
 *   --workers N         worker processes (default 3)
 *   --sessions N        sessions (default 40)
 *   --quiet SECONDS     the longest quiet period before checking (default 120)
 *   --keep              keep each run's directory (the workers' observation files)
 * Prints each seed's schedule, its faults as they happen and a summary; exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { postgresBinary } from '../support/postgres-server.js';
import { redisServerBinary } from '../support/redis-server.js';
import { formatSoakRun } from './soak-report.js';
import { runSoak } from './soak-run.js';
import { parseSeed } from './seeded-random.js';

function count(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min) throw new RangeError(`--${name} must be a whole number >= ${min}, not "${text}"`);
  return value;
}

let options;
try {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '180' },
      seed: { type: 'string', multiple: true },
      workers: { type: 'string', default: '3' },
      sessions: { type: 'string', default: '40' },
      quiet: { type: 'string', default: '120' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  options = {
    durationMs: count('duration', values.duration, 1) * 1000,
    seeds: (values.seed ?? [String(Math.floor(Math.random() * 2 ** 32))]).flatMap((text) => text.split(',')).map(parseSeed),
    workers: count('workers', values.workers, 1),
    sessions: count('sessions', values.sessions, 1),
    quietTimeoutMs: count('quiet', values.quiet, 1) * 1000,
    keepDir: values.keep,
  };
} catch (error) {
  console.error(`npm run soak: ${error instanceof Error ? error.message : String(error)}`);
  console.error('usage: npm run soak -- [--duration SECONDS] [--seed N]... [--workers N] [--sessions N] [--quiet SECONDS] [--keep]');
  process.exit(2);
}

const postgresBin = postgresBinary();
const redisBin = redisServerBinary();
if (postgresBin === undefined || redisBin === undefined) {
  console.error('npm run soak needs PostgreSQL and Redis installed (see above).');
  process.exit(2);
}

const summaries: string[] = [];
let failed = false;
for (const seed of options.seeds) {
  const run = await runSoak({ ...options, seed, postgresBin, redisBin, log: (line) => console.log(line) });
  const lines = formatSoakRun(run);
  for (const line of lines) console.log(line);
  summaries.push(lines[1]!);
  failed ||= run.verdict.violations.length > 0;
}
if (options.seeds.length > 1) {
  console.log('\nall seeds:');
  for (const summary of summaries) console.log(`  ${summary}`);
}
process.exit(failed ? 1 : 0);
