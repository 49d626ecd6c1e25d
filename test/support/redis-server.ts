/**
 * A throwaway Redis for integration tests: Debian's `redis-server` on
 * 127.0.0.1, a free port, a temporary directory, nothing saved to disk;
 * `stop()` kills it and removes the directory.
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
import { freePort } from './postgres-server.js';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

export function redisServerBinary(): string | undefined {
  return externalBinary({ name: 'redis-server', debianPackage: 'redis-server', paths: ['/usr/bin/redis-server'] });
}

export async function startRedis(binary: string): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-redis-'));
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `redis://127.0.0.1:${port}`;
    if (await answersPing(url, child)) {
      return {
        url,
        async stop() {
          if (child.exitCode === null) {
            const exited = new Promise((resolve) => child.once('exit', resolve));
            child.kill('SIGKILL');
            await exited;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    if (!/Address already in use/.test(output)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start: ${output}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('redis-server found no free port');
}

async function answersPing(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      await client.quit();
      return true;
    } catch {
      await client.disconnect().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return false;
}
