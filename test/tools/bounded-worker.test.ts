import { describe, expect, it } from 'vitest';
import { BoundedWorker, WorkerDeadlineError } from '../../src/tools/bounded-worker.js';

// `{ spin: ms }` keeps the worker busy that long (for ever with -1), `{ n }` answers 2n, `{ refuse }` is refused.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const setupEnds = Date.now() + (workerData?.setupMs ?? 0);
while (Date.now() < setupEnds) {}
parentPort.on('message', ({ id, n, spin, refuse }) => {
  if (refuse) return parentPort.postMessage({ id, error: 'refused: ' + refuse });
  if (spin !== undefined) { const until = spin < 0 ? Infinity : Date.now() + spin; while (Date.now() < until) {} }
  parentPort.postMessage({ id, n: 2 * n });
});
parentPort.postMessage({ ready: true });
`;

const within = (ms: number) => ({ deadline: Date.now() + ms });

describe('BoundedWorker', () => {
  it("resolves with the worker's reply", async () => {
    await expect(new BoundedWorker(SOURCE).run({ n: 21 }, within(5_000))).resolves.toMatchObject({ n: 42 });
  });

  it("rejects with the worker's message when it refuses a job", async () => {
    await expect(new BoundedWorker(SOURCE).run({ refuse: 'no' }, within(5_000))).rejects.toThrow('refused: no');
  });

  it('stops a job that runs past its deadline, and the next job runs on a new worker', async () => {
    const worker = new BoundedWorker(SOURCE);
    await expect(worker.run({ spin: -1, n: 1 }, within(100))).rejects.toBeInstanceOf(WorkerDeadlineError);
    await expect(worker.run({ n: 2 }, within(5_000))).resolves.toMatchObject({ n: 4 });
  });

  it('stops a job on abort', async () => {
    const controller = new AbortController();
    const pending = new BoundedWorker(SOURCE).run({ spin: -1, n: 1 }, { signal: controller.signal, deadline: Date.now() + 60_000 });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow('the job was aborted');
  });

  it('a job queued behind a stopped one starts again on a new worker and is answered', async () => {
    const worker = new BoundedWorker(SOURCE);
    const [runaway, queued] = await Promise.allSettled([worker.run({ spin: -1, n: 1 }, within(100)), worker.run({ n: 5 }, within(60_000))]);
    expect(runaway.status).toBe('rejected');
    expect(queued).toMatchObject({ status: 'fulfilled', value: { n: 10 } });
  });

  it('the time the worker takes to set itself up does not count against the deadline', async () => {
    const slowStart = new BoundedWorker(SOURCE, { setupMs: 1_500 });
    await expect(slowStart.run({ n: 3 }, within(500))).resolves.toMatchObject({ n: 6 });
  });
});
