/**
 * Session worker processes (test/fixtures/dbos-worker.ts) for the scale-out
 * tests and benchmarks: start them, wait for what they print, kill them.
 *
 * @example
 * const fleet = new WorkerFleet({ databaseUrl, dir });
 * await Promise.all([fleet.start(), fleet.start()].map((worker) => fleet.ready(worker)));
 * const holder = await fleet.lineFrom(/^BLOCKED tool kill-tool$/);
 * await fleet.kill(holder);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const FIXTURE = path.resolve('test/fixtures/dbos-worker.ts');

export interface Worker {
  id: string;
  process: ChildProcess;
  lines: string[];
}

export class WorkerFleet {
  readonly workers: Worker[] = [];
  private readonly waiters = new Set<() => void>();
  private started = 0;

  /**
   * `fixture`: another worker program taking the same arguments (default test/fixtures/dbos-worker.ts);
   * `env`: more environment for the workers.
   */
  constructor(private readonly options: { databaseUrl: string; dir: string; redisUrl?: string; fixture?: string; env?: Record<string, string> }) {}

  /** Starts one more worker; `env`: more environment for this one alone. */
  start(env: Record<string, string> = {}): Worker {
    const id = `worker-${++this.started}`;
    const env_ = { ...process.env, ...this.options.env, ...env, ...(this.options.redisUrl ? { LOOPCHART_TEST_REDIS_URL: this.options.redisUrl } : {}) };
    const fixture = this.options.fixture ?? FIXTURE;
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, this.options.databaseUrl, this.options.dir, id], { stdio: ['ignore', 'pipe', 'pipe'], env: env_ });
    const worker: Worker = { id, process: child, lines: [] };
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      worker.lines.push(...parts);
      this.wake();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      if (signal === null && code !== 0) worker.lines.push(`EXITED ${code} ${stderr}`);
      this.wake();
    });
    this.workers.push(worker);
    return worker;
  }

  ready(worker: Worker): Promise<Worker> {
    return this.lineFrom(new RegExp(`^READY ${worker.id}$`));
  }

  /** The first worker that printed a line matching `pattern`, waiting for it; rejects when a worker crashes. */
  lineFrom(pattern: RegExp, timeoutMs = 60_000): Promise<Worker> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const crashed = this.workers.find((worker) => worker.lines.some((line) => line.startsWith('EXITED')));
        const found = this.workers.find((worker) => worker.lines.some((line) => pattern.test(line)));
        if (crashed) reject(new Error(`${crashed.id} crashed: ${crashed.lines.join('\n')}`));
        else if (found) resolve(found);
        else return;
        this.waiters.delete(check);
        clearTimeout(timer);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no worker printed ${pattern} in ${timeoutMs} ms:\n${this.workers.map((worker) => `${worker.id}: ${worker.lines.join(' | ')}`).join('\n')}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** SIGKILL: the worker dies mid-whatever, as a crashed machine would. */
  kill(worker: Worker): Promise<void> {
    return this.end(worker, 'SIGKILL');
  }

  /** SIGTERM: the worker stops cleanly (DBOS shut down, heartbeat marked silent). */
  stop(worker: Worker): Promise<void> {
    return this.end(worker, 'SIGTERM');
  }

  /** SIGSTOP: the worker freezes mid-whatever (a long GC pause, a stopped VM) until `resume`. */
  pause(worker: Worker): void {
    if (worker.process.exitCode === null && worker.process.signalCode === null) worker.process.kill('SIGSTOP');
  }

  /** SIGCONT after `pause`. */
  resume(worker: Worker): void {
    if (worker.process.exitCode === null && worker.process.signalCode === null) worker.process.kill('SIGCONT');
  }

  async killAll(): Promise<void> {
    await Promise.all(this.workers.slice().map((worker) => this.kill(worker)));
  }

  private async end(worker: Worker, signal: NodeJS.Signals): Promise<void> {
    if (worker.process.exitCode === null && worker.process.signalCode === null) {
      const exited = new Promise((resolve) => worker.process.once('exit', resolve));
      worker.process.kill(signal);
      await exited;
    }
    this.workers.splice(this.workers.indexOf(worker), 1);
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
