/**
 * Settles as `promise` settles, or rejects with `late()` once `ms` have passed without an answer:
 * for a call to another system (a store, a lease) that may never answer at all. The call itself
 * goes on; whatever it settles with later is ignored. The timer holds the process open while it
 * waits, so a process that has nothing else to do still learns that the answer did not come.
 * When the time is up, what the process has already received is read first (the answer of a
 * process that was paused may be waiting in its socket): only then is the answer late.
 *
 * @example
 * ```ts
 * const lease = await answerWithin(leases.renew(held, ttlMs), ttlMs, () => new Error(`the store did not answer within ${ttlMs} ms`));
 * ```
 */
export function answerWithin<T>(promise: Promise<T>, ms: number, late: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(late())), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the call's own reason, passed on as it is
        reject(error);
      },
    );
  });
}
