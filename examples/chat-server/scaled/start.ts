/**
 * The scaled-out chat on one machine: a throwaway Postgres and Redis
 * (local-services.ts), N worker processes and the web process serving the
 * same page as the one-process server.
 *
 *   npx tsx examples/chat-server/scaled/start.ts [--workers 3] [--port 3000] [--model demo]
 *
 * Ctrl+C stops the web process, then the workers (each finishes its shutdown),
 * then Redis and Postgres, and removes their data. A second Ctrl+C stops
 * everything at once, and still removes the data. The workers and servers run
 * in process groups of their own, so the terminal's Ctrl+C reaches only this
 * process, which stops them in that order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { startLocalServices, type LocalServices } from './local-services.js';
import { startScaledChatWeb } from './web.js';

interface Worker {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

const usage = 'Usage: npx tsx examples/chat-server/scaled/start.ts [--workers N] [--port PORT] [--model demo|openai:<model id>]';

function options(): { workers: number; port: number; model: string } {
  let values: { workers: string; port: string; model: string };
  try {
    ({ values } = parseArgs({ options: { workers: { type: 'string', default: '3' }, port: { type: 'string', default: '3000' }, model: { type: 'string', default: 'demo' } } }));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${usage}`, { cause: error });
  }
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 32) throw new Error(`--workers takes a whole number from 1 to 32, got "${values.workers}".\n${usage}`);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65_535) throw new Error(`--port takes a port number (0 for any free port), got "${values.port}".\n${usage}`);
  return { workers, port, model: values.model };
}

const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker.ts');
const workers: Worker[] = [];
let services: LocalServices | undefined;
let web: Awaited<ReturnType<typeof startScaledChatWeb>> | undefined;
let stopping = false;

/** A worker in a process group of its own: the terminal's Ctrl+C is not its to answer. */
function startWorker(name: string, databaseUrl: string, redisUrl: string, model: string): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', workerScript, databaseUrl, redisUrl, name, model], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) console.error(`${name} exited (${signal ?? `code ${code}`}); the other workers take over its sessions.`);
      resolve();
    }),
  );
  return { name, child, exited };
}

/** The first Ctrl+C: each part stops in turn, and nothing waits for a worker that has exited already. */
async function stopInOrder(): Promise<void> {
  await web?.close();
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
  await services?.stop();
}

/** On any exit but the orderly one (a second Ctrl+C, an error): the workers are killed; local-services kills the servers. */
process.on('exit', () => {
  for (const { child } of workers) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

function onInterrupt(): void {
  if (stopping || web === undefined) {
    console.log(`\nStopping at once${services ? `; removing ${services.dir}` : ''}.`);
    process.exit(130);
  }
  stopping = true;
  console.log('\nStopping the web process, the workers, Redis and Postgres… (Ctrl+C again stops them at once)');
  stopInOrder().then(
    () => {
      console.log(`Stopped; ${services!.dir} removed.`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(`Stopping failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

process.on('SIGINT', onInterrupt);
process.on('SIGTERM', onInterrupt);

try {
  const { workers: count, port, model } = options();
  services = await startLocalServices();
  console.log(`Postgres and Redis keep their data in ${services.dir} until this stops.`);
  await DBOS.migrate(services.databaseUrl);
  for (let index = 1; index <= count; index++) workers.push(startWorker(`worker-${index}`, services.databaseUrl, services.redisUrl, model));
  web = await startScaledChatWeb({ databaseUrl: services.databaseUrl, redisUrl: services.redisUrl, port });
  console.log(`loopchart chat, ${count} workers on Postgres + Redis, at ${web.url} (Ctrl+C stops it)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
