/**
 * A throwaway PostgreSQL and Redis for trying the scaled-out chat on one
 * machine: the installed server programs (Debian's `postgresql` and
 * `redis-server` packages; elsewhere `initdb`, `postgres` and `redis-server`
 * on PATH), listening on 127.0.0.1 on free ports, their data in one temporary
 * directory.
 *
 * Each server runs in a process group of its own, so a Ctrl+C in the terminal
 * reaches only the process that started them, which stops them in order
 * (`stop()`). Should that process exit any other way (a second Ctrl+C, an
 * error), both servers are killed and the directory removed as it exits.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';

export interface LocalServices {
  /** The database `chat` on the throwaway server. */
  databaseUrl: string;
  redisUrl: string;
  /** Where both keep their data. */
  dir: string;
  /** Stops Redis and Postgres (its fast shutdown: clients are disconnected) and removes `dir`. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

/**
 * Starts both servers and resolves once each answers.
 *
 * @example
 * const services = await startLocalServices();
 * console.log(services.databaseUrl, services.redisUrl);
 * await services.stop();
 */
export async function startLocalServices(): Promise<LocalServices> {
  const postgresBin = postgresBinDir();
  const redisServer = onPath('redis-server', ['/usr/bin/redis-server']);
  const missing = [postgresBin ? undefined : 'postgresql', redisServer ? undefined : 'redis-server'].filter((name) => name !== undefined);
  if (missing.length > 0) {
    throw new Error(`The scaled-out chat starts its own PostgreSQL and Redis and needs their server programs: apt-get install -y ${missing.join(' ')} (Debian, Ubuntu).`);
  }
  const user = postgresUser();
  // As root, the servers run as the postgres user, who cannot enter root's private temporary directory.
  const dir = mkdtempSync(path.join(user ? '/tmp' : tmpdir(), 'loopchart-chat-services-'));
  const started: ChildProcess[] = [];
  const killAll = () => {
    for (const child of started) killGroup(child);
    // SIGKILL lands when the kernel next runs them: a Postgres process may still write a file while the
    // directory is removed (ENOTEMPTY), and an exit handler cannot wait for its exit. Tried again a few times.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  };
  process.once('exit', killAll);
  try {
    const postgres = await startPostgres(postgresBin!, path.join(dir, 'postgres'), user, started);
    const redis = await startRedis(redisServer!, path.join(dir, 'redis'), started);
    const databaseUrl = await createDatabase(postgres.url, 'chat');
    return {
      databaseUrl,
      redisUrl: redis.url,
      dir,
      async stop() {
        await Promise.all([stopChild(redis.child, 'SIGTERM'), stopChild(postgres.child, 'SIGINT')]);
        rmSync(dir, { recursive: true, force: true });
        process.off('exit', killAll);
      },
    };
  } catch (error) {
    killAll();
    process.off('exit', killAll);
    throw error;
  }
}

/** The directory of PostgreSQL's server programs: Debian keeps them off PATH, in /usr/lib/postgresql/<version>/bin. */
function postgresBinDir(): string | undefined {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((version) => /^\d+$/.test(version)).sort((a, b) => Number(b) - Number(a)) : [];
  const candidates = versions.map((version) => path.join(debian, version, 'bin', 'postgres'));
  const postgres = onPath('postgres', candidates);
  return postgres && existsSync(path.join(path.dirname(postgres), 'initdb')) ? path.dirname(postgres) : undefined;
}

function onPath(name: string, first: string[]): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  return [...first, ...dirs.map((dir) => path.join(dir, name))].find((candidate) => existsSync(candidate));
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` user Debian's package creates. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'));
  if (!entry) throw new Error('Running as root, and there is no "postgres" user to run PostgreSQL as (Debian\'s postgresql package creates it).');
  const [, , uid, gid] = entry.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function startPostgres(binDir: string, dataDir: string, user: { uid: number; gid: number } | undefined, started: ChildProcess[]): Promise<{ url: string; child: ChildProcess }> {
  const socketDir = path.dirname(dataDir);
  if (user) {
    chownSync(socketDir, user.uid, user.gid);
    chmodSync(socketDir, 0o700);
  }
  const asUser = user ?? {};
  const init = spawnSync(path.join(binDir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'], { ...asUser, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const child = spawn(path.join(binDir, 'postgres'), ['-D', dataDir, '-p', String(port), '-k', socketDir, '-c', 'listen_addresses=127.0.0.1'], {
    ...asUser,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await untilReady('PostgreSQL', child, async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  });
  return { url, child };
}

async function startRedis(binary: string, dataDir: string, started: ChildProcess[]): Promise<{ url: string; child: ChildProcess }> {
  mkdirSync(dataDir);
  const port = await freePort();
  const child = spawn(binary, ['--bind', '127.0.0.1', '--port', String(port), '--dir', dataDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  const url = `redis://127.0.0.1:${port}`;
  await untilReady('Redis', child, async () => {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
    } finally {
      if (client.isOpen) client.destroy();
    }
  });
  return { url, child };
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return serverUrl.replace(/\/postgres$/, `/${name}`);
}

/** Tries `connect` until it succeeds; fails with the server's own output when it exits or does not answer in time. */
async function untilReady(name: string, child: ChildProcess, connect: () => Promise<void>): Promise<void> {
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited as it started: ${output.trim()}`);
    try {
      await connect();
      child.stderr?.removeAllListeners('data');
      child.stderr?.resume();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${name} did not answer within ${READY_TIMEOUT_MS / 1000} s: ${error instanceof Error ? error.message : String(error)}\n${output.trim()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Sends `signal` and waits for the process to exit (at once when it already has). */
function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}

/** SIGKILL to the process and everything in its group (Postgres's backends). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A port that is free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
