import type { AgentEvent } from './core/events.js';

/**
 * Delivers an agent's events in order, holding them while a write is in
 * flight so that a step boundary is reported only once it is durable.
 * Without holds it adds nothing: events pass straight through.
 */
export class EventOutbox {
  private readonly queue: AgentEvent[] = [];
  private holds = 0;
  private flushing = false;

  constructor(private readonly deliver: (event: AgentEvent) => void) {}

  /** An event from the machine: it waits for the end of its macrostep (see {@link settleMacrostep}). */
  enqueue(event: AgentEvent): void {
    this.queue.push(event);
  }

  /** An event outside any macrostep (a delta): delivered at once unless earlier events wait. */
  push(event: AgentEvent): void {
    if (this.holds === 0 && this.queue.length === 0) this.deliver(event);
    else this.queue.push(event);
  }

  /** The macrostep ended; `write` (if any) must finish before its events go out. */
  settleMacrostep(write: Promise<void> | undefined): void {
    if (!write) {
      this.flush();
      return;
    }
    this.holds++;
    const release = () => {
      this.holds--;
      this.flush();
    };
    write.then(release, release);
  }

  flush(): void {
    if (this.flushing || this.holds > 0) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0 && this.holds === 0) this.deliver(this.queue.shift()!);
    } finally {
      this.flushing = false;
    }
  }
}
