/**
 * A replayable stream source: parts are appended once, and every consumer
 * gets its own `ReadableStream` over all of them, from the first — so
 * `stream`, `textStream` and a UI stream can each be read.
 */
export class PartBuffer<T> {
  private readonly parts: T[] = [];
  private closed = false;
  private readonly waiting = new Set<() => void>();

  push(part: T): void {
    if (this.closed) return;
    this.parts.push(part);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  readable(): ReadableStream<T> {
    let index = 0;
    return new ReadableStream<T>({
      pull: async (controller) => {
        while (index >= this.parts.length && !this.closed) await new Promise<void>((resolve) => this.waiting.add(resolve));
        if (index < this.parts.length) controller.enqueue(this.parts[index++]!);
        else controller.close();
      },
    });
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
