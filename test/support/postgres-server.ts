/**
 * A throwaway PostgreSQL server for integration tests: Debian's binaries,
 * a temporary data directory, 127.0.0.1 on a free port, stopped and removed
 * by `stop()`. PostgreSQL refuses to run as root, so under root (CI) the
 * server runs as the `postgres` system user the Debian package creates.
 *
 * @example
 * const postgresBin = postgresBinary();
 * describe.skipIf(postgresBin === undefined)('pgStore', () => {
 *   let server: PostgresServer;
 *   beforeAll(async () => (server = await startPostgres(postgresBin!)), 60_000);
 *   afterAll(() => server?.stop());
 * });
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { externalBinary, postgresBinDirs } from './external-binary.js';
import { freePort } from './free-port.js';

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** A new empty database on this server, and its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The directory of Debian's PostgreSQL server programs, or undefined (with a notice) when it is not installed. */
export function postgresBinary(): string | undefined {
  const postgres = externalBinary({
    name: 'postgres',
    debianPackage: 'postgresql',
    paths: postgresBinDirs().map((dir) => path.join(dir, 'postgres')),
  });
  return postgres === undefined ? undefined : path.dirname(postgres);
}


/** uid and gid of the `postgres` user when running as root (PostgreSQL will not run as root). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no "postgres" user to run PostgreSQL as (Debian\'s postgresql package creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Starts a server and waits until it accepts connections. */
export async function startPostgres(binDir: string): Promise<PostgresServer> {
  const user = serverUser();
  // The postgres user cannot enter the test run's private temporary directory (0700, root's): use the system's.
  const root = mkdtempSync(path.join(user ? '/tmp' : tmpdir(), 'loopchart-pg-'));
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  if (user) {
    chownSync(root, user.uid, user.gid);
    chmodSync(root, 0o700);
  }
  const dataDir = path.join(root, 'data');
  const init = spawnSync(path.join(binDir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    ...asUser,
    encoding: 'utf8',
  });
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  }
  let server: ChildProcess | undefined;
  let port = 0;
  let output = '';
  for (let attempt = 0; attempt < 5 && server === undefined; attempt++) {
    port = await freePort();
    const child = spawn(
      path.join(binDir, 'postgres'),
      ['-D', dataDir, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
      { ...asUser, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ready = await waitUntilReady(port, child);
    if (ready) server = child;
    else if (!/could not bind|Address already in use/.test(output)) break;
  }
  if (!server) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${output}`);
  }
  const running = server;
  // Should the test process end without stop() (a hook that timed out, a crash), the server and its data go with it.
  const cleanUpOnExit = () => {
    running.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', cleanUpOnExit);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      process.off('exit', cleanUpOnExit);
      if (running.exitCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGINT'); // fast shutdown: disconnects clients
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Polls with a real connection until the server answers, the process exits, or 30 s pass. */
async function waitUntilReady(port: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return true;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill('SIGKILL');
  return false;
}
