/**
 * The soak's worker slots: each slot runs one worker process at a time. A slot's worker is
 * SIGKILLed and replaced by a new process, or paused with SIGSTOP and resumed; a worker that dies
 * on its own is recorded (with what it printed) and replaced too, so the soak goes on and the
 * checks report it. Every start, kill, pause and exit goes to the harness log with its time.
 *
 * @example
 * const slots = new WorkerSlots(fleet, log, 3);
 * await slots.startAll();
 * await slots.kill(1, 500); // a new worker in slot 1 half a second later
 */
import type { Worker, WorkerFleet } from '../support/worker-fleet.js';
import type { HarnessLog, WorkerLife } from './soak-observations.js';

export class WorkerSlots {
  private readonly current: Array<{ worker: Worker; life: WorkerLife } | undefined>;
  private readonly pending = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(
    private readonly fleet: WorkerFleet,
    private readonly log: HarnessLog,
    count: number,
    private readonly note: (line: string) => void = () => undefined,
  ) {
    this.current = Array.from({ length: count }, () => undefined);
  }

  /** Starts a worker in every slot and waits until each is ready. */
  async startAll(): Promise<void> {
    await Promise.all(this.current.map((_, slot) => this.start(slot)));
  }

  /** SIGKILL the slot's worker; a new one starts `restartAfterMs` later. Resolves when that one is ready. */
  kill(slot: number, restartAfterMs: number): Promise<void> {
    return this.track(
      (async () => {
        const running = this.current[slot];
        if (running) {
          running.life.exit = { at: Date.now(), code: null, signal: 'SIGKILL', byHarness: true, output: '' };
          this.log.kills.push({ worker: running.worker.id, at: Date.now() });
          this.current[slot] = undefined;
          await this.fleet.kill(running.worker);
        }
        await delay(restartAfterMs);
        await this.start(slot);
      })(),
    );
  }

  /** SIGSTOP the slot's worker for `forMs`, then SIGCONT. */
  pause(slot: number, forMs: number): Promise<void> {
    return this.track(
      (async () => {
        const running = this.current[slot];
        if (!running) return;
        const from = Date.now();
        this.fleet.pause(running.worker);
        await delay(forMs);
        this.fleet.resume(running.worker);
        this.log.pauses.push({ worker: running.worker.id, from, to: Date.now() });
      })(),
    );
  }

  /** Waits for every kill, restart and pause in progress, then for a ready worker in every slot. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    await Promise.all(this.current.map((running, slot) => (running ? this.ready(running.worker, running.life) : this.start(slot))));
  }

  /** Kills every worker; no more restarts. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const running of this.current) if (running) running.life.exit ??= { at: Date.now(), code: null, signal: 'SIGKILL', byHarness: true, output: '' };
    this.current.fill(undefined);
    await this.fleet.killAll();
    await Promise.all([...this.pending].map((pending) => pending.catch(() => undefined)));
  }

  /** Starts a worker in the slot (unless one is there) and waits until it is ready; one that fails to start is tried again. */
  private async start(slot: number): Promise<void> {
    while (!this.stopping && this.current[slot] === undefined) {
      const worker = this.fleet.start();
      const life: WorkerLife = { id: worker.id, slot, pid: worker.process.pid ?? -1, startedAt: Date.now() };
      this.log.workers.push(life);
      this.current[slot] = { worker, life };
      worker.process.once('exit', (code, signal) => {
        if (life.exit) return; // killed by the harness, which replaces it
        life.exit = { at: Date.now(), code, signal, byHarness: false, output: worker.lines.join('\n') };
        this.note(`${worker.id} (slot ${slot}) ${life.readyAt === undefined ? 'failed to start' : 'DIED'}: ${signal ?? `exit code ${code}`}`);
        if (this.current[slot]?.worker === worker) this.current[slot] = undefined;
        // Replaced, so that the soak goes on; the checks report the death.
        if (life.readyAt !== undefined) void this.track(delay(500).then(() => this.start(slot)));
      });
      if (await this.ready(worker, life)) return;
      if (life.exit?.byHarness) return;
      await delay(500);
    }
  }

  /** True once the worker printed READY; false when it exited first. */
  private ready(worker: Worker, life: WorkerLife): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (worker.lines.includes(`READY ${worker.id}`)) {
          life.readyAt ??= Date.now();
          done(true);
        } else if (worker.process.exitCode !== null || worker.process.signalCode !== null) done(false);
      };
      const done = (ready: boolean) => {
        worker.process.stdout?.off('data', later);
        worker.process.off('exit', later);
        resolve(ready);
      };
      const later = () => setImmediate(check);
      worker.process.stdout?.on('data', later);
      worker.process.on('exit', later);
      check();
    });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise)).catch(() => undefined);
    return promise;
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
