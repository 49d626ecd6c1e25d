/**
 * A throwaway Redis server for integration tests: Debian's `redis-server` on 127.0.0.1 and a
 * free port, with a temporary directory and no persistence, stopped and removed by `stop()`.
 * Should the test file end without calling `stop()` (a crash), the process is killed when the
 * test worker exits.
 *
 * @example
 * const redisBin = redisServerBinary();
 * describe.skipIf(redisBin === undefined)('events over Redis', () => {
 *   let server: RedisServer;
 *   beforeAll(async () => (server = await startRedis(redisBin!)));
 *   afterAll(() => server?.stop());
 * });
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { externalBinary } from './external-binary.js';
import { freePort } from './free-port.js';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

/**
 * The path of Debian's `redis-server`, or undefined (with a notice) when it is not installed.
 *
 * @example
 * const redisBin = redisServerBinary(); // '/usr/bin/redis-server'
 */
export function redisServerBinary(): string | undefined {
  return externalBinary({ name: 'redis-server', debianPackage: 'redis-server', paths: ['/usr/bin/redis-server'] });
}

const START_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts a server and waits until it answers PING; retries on another port when the one it got
 * was taken meanwhile.
 *
 * @example
 * const server = await startRedis(redisBin);
 * const redis = await createClient({ url: server.url }).connect();
 */
export async function startRedis(binary: string): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-redis-'));
  let output = '';
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await freePort();
    output = '';
    const child = spawn(
      binary,
      ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', ''],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let running = true;
    const closed = new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      // Could not be started at all (no 'close' follows).
      child.once('error', (error) => {
        output += `${error.message}\n`;
        resolve();
      });
    }).then(() => (running = false));
    const killOnExit = () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', killOnExit);
    const collect = (chunk: Buffer) => (output += chunk.toString());
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const url = `redis://127.0.0.1:${port}`;
    if (await answersPing(url, () => running && child.exitCode === null && child.signalCode === null)) {
      return {
        url,
        async stop() {
          await kill(child, closed);
          process.off('exit', killOnExit);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await kill(child, closed);
    process.off('exit', killOnExit);
    if (!/Address already in use/i.test(output)) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not start:\n${output}`);
}


/** Polls with a real connection until the server answers PING; false when the process exits or time runs out. */
async function answersPing(url: string, isRunning: () => boolean): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && isRunning()) {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const reply = await client.ping();
      client.destroy();
      if (reply === 'PONG') return true;
    } catch {
      if (client.isOpen) client.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return false;
}

/** SIGKILL (there is nothing to save); resolves once it has exited and its output is read. */
async function kill(child: ChildProcess, closed: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill('SIGKILL');
  await closed;
}
