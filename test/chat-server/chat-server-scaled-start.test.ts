/**
 * `examples/chat-server/scaled/start.ts` as a user runs it in a terminal, whose
 * Ctrl+C is a SIGINT to the whole foreground process group: the first stops
 * everything in order — also after a worker was killed — and the second stops
 * everything at once; either way no process it started and none of its data is
 * left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresBinary } from '../support/postgres-server.js';
import { redisServerBinary } from '../support/redis-server.js';
import { eventually } from '../support/process-marker.js';

const START = path.resolve('examples/chat-server/scaled/start.ts');
const postgresBin = postgresBinary();
const redisBin = redisServerBinary();

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in the output so far or to come. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Started in a process group of its own, as a shell starts a foreground job. */
function startScaledChat(workers: number): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', START, '--workers', String(workers), '--port', '0'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let closed = false;
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    wake();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      closed = true;
      wake();
      resolve({ code, signal });
    }),
  );
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) resolve(match);
        else if (closed) reject(new Error(`start.ts exited before printing ${pattern}:\n${output}`));
        else waiters.push(check);
      };
      check();
    });
  return { child, output: () => output, waitFor, exited };
}

/** The terminal's Ctrl+C: SIGINT to every process of the foreground group. */
function ctrlC(started: Started): void {
  process.kill(-started.child.pid!, 'SIGINT');
}

/** Every live process below `pid`, however deep (Postgres's backends are its grandchildren). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(entry)]);
    } catch {
      // ended while we looked
    }
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

describe.skipIf(postgresBin === undefined || redisBin === undefined)('the scaled-out chat started from a terminal', { timeout: 120_000 }, () => {
  let started: Started | undefined;
  let processes: number[] = [];
  afterEach(async () => {
    // Whatever a failed test left: the job's own group, then anything it started.
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      process.kill(-started.child.pid!, 'SIGKILL');
      await started.exited;
    }
    for (const pid of processes.filter(isLive)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        process.kill(pid, 'SIGKILL');
      }
    }
    started = undefined;
    processes = [];
  });

  async function running(workers: number): Promise<{ dir: string; workerPids: number[] }> {
    started = startScaledChat(workers);
    const [, dir] = await started.waitFor(/keep their data in (\S+) until this stops/);
    await started.waitFor(/at http:\/\/127\.0\.0\.1:\d+ \(Ctrl\+C stops it\)/);
    for (let index = 1; index <= workers; index++) await started.waitFor(new RegExp(`worker worker-${index} ready`));
    processes = descendants(started.child.pid!);
    const workerPids = processes.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker.ts'));
    expect(workerPids).toHaveLength(workers);
    expect(existsSync(dir!)).toBe(true);
    return { dir: dir!, workerPids };
  }

  it('the first Ctrl+C stops it cleanly, though a worker was killed before: nothing it started and none of its data is left', async () => {
    const { dir, workerPids } = await running(2);
    process.kill(workerPids[0]!, 'SIGKILL');
    await started!.waitFor(/worker-\d exited \(SIGKILL\); the other workers take over/);

    ctrlC(started!);
    expect(await started!.exited).toEqual({ code: 0, signal: null });
    expect(started!.output()).toContain(`Stopped; ${dir} removed.`);
    expect(existsSync(dir)).toBe(false);
    expect(await eventually(() => processes.filter(isLive).length === 0)).toBe(true);
  });

  it('a second Ctrl+C stops at once what the first waits for, and still leaves nothing behind', async () => {
    const { dir, workerPids } = await running(1);
    // A worker that cannot answer the first Ctrl+C: the orderly stop waits for it.
    process.kill(workerPids[0]!, 'SIGSTOP');
    ctrlC(started!);
    await started!.waitFor(/Ctrl\+C again stops them at once/);
    ctrlC(started!);
    expect(await started!.exited).toEqual({ code: 130, signal: null });
    expect(started!.output()).toContain(`Stopping at once; removing ${dir}.`);
    expect(existsSync(dir)).toBe(false);
    expect(await eventually(() => processes.filter(isLive).length === 0)).toBe(true);
  });
});
