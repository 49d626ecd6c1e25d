/** Told about each part of an observed stream as it passes, and how the stream ended. */
export interface StreamObserver<T> {
  part(part: T): void;
  /** The source closed. Not called when the reader cancelled the stream. */
  close(): void;
  /** The source errored with `error`. */
  error(error: unknown): void;
}

/**
 * A stream that passes every part of `source` through unchanged (the same
 * objects, errors and close) while telling `observer` about them. It reads the
 * source only when its own reader asks for a part, so it adds no buffering and
 * keeps the source's backpressure; cancelling it cancels the source.
 */
export function observedStream<T>(source: ReadableStream<T>, observer: StreamObserver<T>): ReadableStream<T> {
  const reader = source.getReader();
  let cancelled = false;

  return new ReadableStream<T>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<T>;
        try {
          result = await reader.read();
        } catch (error) {
          if (cancelled) return;
          observer.error(error);
          controller.error(error);
          return;
        }
        if (cancelled) return;
        if (result.done) {
          observer.close();
          controller.close();
          return;
        }
        observer.part(result.value);
        controller.enqueue(result.value);
      },

      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
