import { errorMessage } from '../core/error-message.js';
import { LeaseLostError, type SessionLease, type SessionLeases } from './session-store.js';

/** A session's lease while an agent holds it: renewed on a timer, and checked before every model call and tool. */
export interface HeldLease {
  /** The epoch the lease was acquired with: every write and event of this holder carries it, also after the lease is lost. */
  readonly epoch: number;
  /** The reason the lease is no longer this holder's, once it is not. */
  readonly lost: LeaseLostError | undefined;
  /** Whether the lease is held now without asking the store: not lost, and within its time to live. */
  isCurrent(): boolean;
  /**
   * Resolves when the lease is still held: renewed within its time to live, or renewed now if that
   * time has passed (a paused process). Rejects with `LeaseLostError` otherwise, after `onLost` ran.
   */
  ensureHeld(): Promise<void>;
  /** Stops renewing and lets the lease go (a lost lease is left alone). */
  release(): Promise<void>;
}

export interface HoldLeaseOptions {
  leases: SessionLeases;
  sessionId: string;
  owner: string;
  ttlMs: number;
  /** Called once, when the lease is found lost: taken by another owner, or lapsed and not renewable. Must not throw. */
  onLost: (error: LeaseLostError) => void;
  /** The local monotonic clock, in ms. Default `performance.now`. */
  now?: () => number;
}

/**
 * Acquires a session's lease and keeps it: renewed every third of its time to live. The store's
 * expiry is on the store's clock; this holder counts its own from the moment it *sent* each
 * successful acquisition or renewal, which can only be earlier than the store's, so it never
 * believes a lease held that the store has let lapse.
 *
 * The lease is lost when a renewal is refused (`LeaseLostError`: another owner took it), or when
 * its time to live has passed and a renewal cannot be made (the store unreachable): from then on
 * another worker may own the session, so `onLost` stops the run and `ensureHeld` rejects.
 *
 * @example
 * ```ts
 * const lease = await holdLease({ leases: store.leases!, sessionId: 'chat-42', owner: 'worker-1', ttlMs: 30_000, onLost: stopRun });
 * await lease.ensureHeld(); // before a model call or a tool
 * await lease.release();
 * ```
 * @throws LeaseHeldError when another owner holds an unexpired lease.
 */
export async function holdLease(options: HoldLeaseOptions): Promise<HeldLease> {
  const { leases, ttlMs } = options;
  const now = options.now ?? (() => performance.now());
  const sentAt = now();
  let lease: SessionLease = await leases.acquire(options.sessionId, options.owner, ttlMs);
  let validUntil = sentAt + ttlMs;
  let lost: LeaseLostError | undefined;
  let released = false;
  let renewing: Promise<void> | undefined;

  const loseWith = (error: LeaseLostError): LeaseLostError => {
    if (lost) return lost;
    lost = error;
    clearInterval(timer);
    options.onLost(error);
    return error;
  };
  const expired = (cause: unknown): LeaseLostError =>
    new LeaseLostError(
      `session ${options.sessionId}: the lease of ${options.owner} (epoch ${lease.epoch}) ran out without a renewal (last attempt: ${errorMessage(cause)}); another worker may own the session now`,
      { cause },
    );
  /** One renewal at a time; a failure past the time to live loses the lease. */
  const renew = (): Promise<void> =>
    (renewing ??= (async () => {
      const sent = now();
      try {
        lease = await leases.renew(lease, ttlMs);
        if (!lost) validUntil = sent + ttlMs;
      } catch (error) {
        if (error instanceof LeaseLostError) throw loseWith(error);
        // The store is unreachable: the lease holds until its time to live has passed.
        if (now() >= validUntil) throw loseWith(expired(error));
      } finally {
        renewing = undefined;
      }
    })());

  const timer = setInterval(
    () => {
      if (!lost && !released) renew().catch(() => undefined);
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref?.();

  return {
    epoch: lease.epoch,
    get lost() {
      return lost;
    },
    isCurrent: () => !lost && !released && now() < validUntil,
    async ensureHeld() {
      if (lost) throw lost;
      if (released) throw new LeaseLostError(`session ${options.sessionId}: the lease was released`);
      if (now() < validUntil) return;
      // Past its time to live (this process was paused, or renewals failed): only a renewal made now keeps it.
      await renew();
      if (lost) throw lost;
      if (now() >= validUntil) throw loseWith(expired(new Error('the renewal took longer than the lease lasts')));
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing?.catch(() => undefined);
      if (!lost) await leases.release(lease);
    },
  };
}
