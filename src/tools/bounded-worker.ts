import { Worker } from 'node:worker_threads';

/** Why a job was stopped: the caller's abort, or its deadline. */
export class WorkerDeadlineError extends Error {
  override readonly name = 'WorkerDeadlineError';

  /**
   * @param ranMs How long the job ran in its worker before it was stopped (0 when it never got to
   * run): starting the worker does not count, as it does not count against the deadline.
   */
  constructor(
    message: string,
    readonly ranMs = 0,
  ) {
    super(message);
  }
}

/** When a job must be done: an epoch-ms deadline, and optionally an abort signal. */
export interface JobDeadline {
  signal?: AbortSignal | undefined;
  /** Epoch ms. Time spent starting a worker for the job does not count. */
  deadline: number;
}

interface StartedWorker {
  worker: Worker;
  /** Resolves once the source has set itself up and said `{ ready: true }`. */
  ready: Promise<void>;
}

/**
 * A worker thread that runs jobs which may not end on their own — a regular
 * expression that backtracks catastrophically cannot be interrupted, but the
 * thread running it can be terminated. The worker is started from CommonJS
 * source on first use, kept (unreferenced, so it never holds the process
 * open) and replaced after a termination; a job queued behind one that was
 * stopped starts again on the new worker.
 *
 * The source posts `{ ready: true }` once it has set itself up (loaded what
 * it needs: that time does not count against a job's deadline), then answers
 * each message `{ id, …job }` with `{ id, …reply }`, or `{ id, error: message }`
 * for a job it refuses.
 *
 * @example
 * const doubler = new BoundedWorker(`
 *   const { parentPort } = require('node:worker_threads');
 *   parentPort.on('message', ({ id, n }) => parentPort.postMessage({ id, n: 2 * n }));
 *   parentPort.postMessage({ ready: true });
 * `);
 * await doubler.run({ n: 21 }, { deadline: Date.now() + 1_000 }); // { id: 0, n: 42 }
 */
export class BoundedWorker {
  private current: StartedWorker | undefined;
  private nextId = 0;

  constructor(
    private readonly source: string,
    private readonly workerData?: unknown,
  ) {}

  /**
   * Runs one job and resolves with the worker's reply.
   * @throws WorkerDeadlineError when `signal` aborts or the deadline passes first; the worker is then terminated.
   * @throws Error with the worker's message when it refuses the job, or the worker's error when it fails to start.
   */
  async run(job: Record<string, unknown>, options: JobDeadline): Promise<Record<string, unknown>> {
    if (options.signal?.aborted) throw new WorkerDeadlineError('the job was aborted');
    const started = this.ensureWorker();
    const waitStarted = Date.now();
    await started.ready;
    if (options.signal?.aborted) throw new WorkerDeadlineError('the job was aborted');
    return this.post(started.worker, job, { signal: options.signal, deadline: options.deadline + (Date.now() - waitStarted) }, options);
  }

  private post(worker: Worker, job: Record<string, unknown>, limits: JobDeadline, original: JobDeadline): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // When the job reaches the worker (it is posted below, at once): what a stopped job ran counts from here.
      const postedAt = Date.now();
      const finish = () => {
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const stop = (reason: string) => {
        finish();
        this.terminate(worker);
        reject(new WorkerDeadlineError(reason, Date.now() - postedAt));
      };
      const onMessage = (reply: { id?: number; error?: string }) => {
        if (reply.id !== id) return;
        finish();
        if (reply.error !== undefined) reject(new Error(reply.error));
        else resolve(reply);
      };
      const onError = (error: Error) => {
        finish();
        this.forget(worker);
        reject(error);
      };
      // Another job's deadline got the worker terminated: this one starts again on a new worker.
      const onExit = () => {
        finish();
        this.forget(worker);
        this.run(job, original).then(resolve, reject);
      };
      const onAbort = () => stop('the job was aborted');
      const timer = setTimeout(() => stop('the job ran out of time'), Math.max(0, limits.deadline - Date.now()));
      limits.signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ ...job, id });
    });
  }

  /** Resolves once a worker is up to take jobs (started now if none is): a caller can start its clock after it. */
  async started(): Promise<void> {
    await this.ensureWorker().ready;
  }

  private ensureWorker(): StartedWorker {
    if (this.current) return this.current;
    const worker = new Worker(this.source, { eval: true, workerData: this.workerData });
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const settle = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (message: { ready?: boolean }) => {
        if (message.ready !== true) return;
        settle();
        resolve();
      };
      const onError = (error: Error) => {
        settle();
        this.forget(worker);
        reject(error);
      };
      const onExit = (code: number) => {
        settle();
        this.forget(worker);
        reject(new Error(`the worker stopped (exit code ${code}) before it was ready`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    // A start that fails is reported to the jobs waiting for it; none may be waiting.
    ready.catch(() => undefined);
    this.current = { worker, ready };
    return this.current;
  }

  private forget(worker: Worker): void {
    if (this.current?.worker === worker) this.current = undefined;
  }

  private terminate(worker: Worker): void {
    this.forget(worker);
    void worker.terminate();
  }
}
