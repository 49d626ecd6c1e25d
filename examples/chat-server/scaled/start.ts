/**
 * The scaled-out chat on one machine: a throwaway Postgres and Redis (Debian's
 * `postgresql` and `redis-server`, on 127.0.0.1, in a temporary directory),
 * N worker processes and one web process serving the same page as the
 * one-process server. Ctrl+C stops everything and removes the data.
 *
 *   npx tsx examples/chat-server/scaled/start.ts [--workers 3] [--port 3000] [--model demo]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { postgresBinary, startPostgres } from '../../../test/support/postgres-server.js';
import { redisServerBinary, startRedis } from '../../../test/support/redis-server.js';
import { startScaledChatWeb } from './web.js';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '3' }, port: { type: 'string', default: '3000' }, model: { type: 'string', default: 'demo' } } });
const postgresBin = postgresBinary();
const redisBin = redisServerBinary();
if (!postgresBin || !redisBin) {
  console.error('The scaled-out chat needs PostgreSQL and Redis: apt-get install -y postgresql redis-server');
  process.exit(1);
}
const postgres = await startPostgres(postgresBin);
const redis = await startRedis(redisBin);
const databaseUrl = await postgres.createDatabase('chat');
await DBOS.migrate(databaseUrl);
const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker.ts');
const workers: ChildProcess[] = Array.from({ length: Number(values.workers) }, (_, index) =>
  spawn(process.execPath, ['--import', 'tsx', workerScript, databaseUrl, redis.url, `worker-${index + 1}`, values.model], { stdio: 'inherit' }),
);
const web = await startScaledChatWeb({ databaseUrl, redisUrl: redis.url, port: Number(values.port) });
console.log(`loopchart chat, ${workers.length} workers on Postgres + Redis, at ${web.url}`);

const stop = async () => {
  await web.close();
  await Promise.all(workers.map((worker) => new Promise((resolve) => (worker.once('exit', resolve), worker.kill('SIGTERM')))));
  await redis.stop();
  await postgres.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
