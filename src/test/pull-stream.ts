export interface PullStreamOptions {
  /** Aborting errors the stream with an `AbortError`, as a fetch response body does. */
  signal?: AbortSignal;
  /**
   * How many items to produce ahead of the reader. The default, 0, produces
   * an item only when a read is waiting for it.
   */
  highWaterMark?: number;
}

/**
 * A stream that asks `next` for one item per read and closes when `next`
 * returns `undefined`. Nothing is produced ahead of demand, so a source of any
 * length costs constant memory, and a `next` that throws or rejects errors the
 * stream.
 *
 * @example
 * let count = 0;
 * const numbers = pullStream(() => (count < 3 ? count++ : undefined));
 * // reads 0, 1, 2, then the stream closes
 */
export function pullStream<T>(
  next: () => T | undefined | PromiseLike<T | undefined>,
  { signal, highWaterMark = 0 }: PullStreamOptions = {},
): ReadableStream<T> {
  let ended = false;
  let stopListeningForAbort = (): void => {};

  const end = (): void => {
    ended = true;
    stopListeningForAbort();
  };

  return new ReadableStream<T>(
    {
      start(controller) {
        if (signal === undefined) return;
        const onAbort = (): void => {
          if (ended) return;
          end();
          controller.error(abortErrorFor(signal));
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        stopListeningForAbort = () => signal.removeEventListener('abort', onAbort);
      },

      async pull(controller) {
        if (ended) return;
        let item: T | undefined;
        try {
          item = await next();
        } catch (error) {
          if (ended) return;
          end();
          controller.error(error);
          return;
        }
        if (ended) return;
        if (item === undefined) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(item);
      },

      cancel() {
        end();
      },
    },
    { highWaterMark },
  );
}

/**
 * The error a fetch-based provider fails with when its request is aborted:
 * the signal's reason when that is already a `DOMException` (`AbortError`,
 * `TimeoutError`), otherwise a new `AbortError`.
 */
export function abortErrorFor(signal: AbortSignal): DOMException {
  return signal.reason instanceof DOMException
    ? signal.reason
    : new DOMException('This operation was aborted', 'AbortError');
}

/** Resolves after `ms`; rejects with an `AbortError` as soon as `signal` aborts. */
export function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal === undefined) {
      setTimeout(resolve, ms);
      return;
    }
    if (signal.aborted) {
      reject(abortErrorFor(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortErrorFor(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Never resolves; rejects with an `AbortError` when `signal` aborts. */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) {
      reject(abortErrorFor(signal));
      return;
    }
    signal.addEventListener('abort', () => reject(abortErrorFor(signal)), { once: true });
  });
}
