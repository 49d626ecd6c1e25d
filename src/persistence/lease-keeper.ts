import { answerWithin } from '../core/answer-within.js';
import { errorMessage } from '../core/error-message.js';
import { LeaseLostError, type SessionLease, type SessionLeases } from './session-store.js';
import { StoreTimeoutError } from './store-timeout-error.js';

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
   * time has passed (a paused process). Rejects with `LeaseLostError` otherwise, after the `onLost` listeners ran.
   */
  ensureHeld(): Promise<void>;
  /** Renews the lease once (one renewal at a time); rejects with `LeaseLostError` when that finds it lost. */
  renew(): Promise<void>;
  /** Calls `listener` once when the lease is found lost (at once if it already is); returns the unsubscribe. Listeners must not throw. */
  onLost(listener: (error: LeaseLostError) => void): () => void;
  /** Stops renewing and lets the lease go (a lost lease is left alone). */
  release(): Promise<void>;
}

export interface AcquireLeaseOptions {
  leases: SessionLeases;
  sessionId: string;
  owner: string;
  ttlMs: number;
  /** The local monotonic clock, in ms. Default `performance.now`. */
  now?: () => number;
}

export interface HoldLeaseOptions extends AcquireLeaseOptions {
  /** Called once, when the lease is found lost: taken by another owner, or lapsed and not renewable. Must not throw. */
  onLost: (error: LeaseLostError) => void;
}

/**
 * Acquires a session's lease, without renewing it ({@link renewLeasePeriodically} does, and
 * {@link holdLease} does both). The store's expiry is on the store's clock; this holder counts its
 * own from the moment it *sent* each successful acquisition or renewal, which can only be earlier
 * than the store's, so it never believes a lease held that the store has let lapse.
 *
 * The lease is lost when a renewal is refused (`LeaseLostError`: another owner took it), or when
 * its time to live has passed and a renewal cannot be made (the store unreachable): from then on
 * another worker may own the session, so the `onLost` listeners stop the run and `ensureHeld` rejects.
 *
 * @example
 * ```ts
 * const lease = await acquireLease({ leases: store.leases!, sessionId: 'chat-42', owner: 'worker-1', ttlMs: 30_000 });
 * const stopRenewing = renewLeasePeriodically(lease, 10_000);
 * lease.onLost(stopRun);
 * await lease.ensureHeld(); // before a model call or a tool
 * stopRenewing();
 * await lease.release();
 * ```
 * @throws LeaseHeldError when another owner holds an unexpired lease.
 */
export async function acquireLease(options: AcquireLeaseOptions): Promise<HeldLease> {
  const { leases, ttlMs } = options;
  const now = options.now ?? (() => performance.now());
  const sentAt = now();
  // An acquisition answered later than the lease lasts would give a lease already run out by this holder's count.
  const acquiring = leases.acquire(options.sessionId, options.owner, ttlMs);
  let lease: SessionLease = await answerWithin(acquiring, ttlMs, () => new StoreTimeoutError(unanswered(`acquiring the lease of session ${options.sessionId}`, ttlMs))).catch(
    (error: unknown) => {
      // Should the acquisition land after all, nobody holds what it took: it is given back (or lapses, if the store is still away).
      if (error instanceof StoreTimeoutError) acquiring.then((late) => leases.release(late)).catch(() => undefined);
      throw error;
    },
  );
  let validUntil = sentAt + ttlMs;
  let lost: LeaseLostError | undefined;
  let released = false;
  let renewing: Promise<void> | undefined;
  const listeners = new Set<(error: LeaseLostError) => void>();

  const loseWith = (error: LeaseLostError): LeaseLostError => {
    if (lost) return lost;
    lost = error;
    for (const listener of [...listeners]) listener(error);
    listeners.clear();
    return error;
  };
  const expired = (cause: unknown): LeaseLostError =>
    new LeaseLostError(
      `session ${options.sessionId}: the lease of ${options.owner} (epoch ${lease.epoch}) ran out without a renewal (last attempt: ${errorMessage(cause)}); another worker may own the session now`,
      { cause },
    );
  /**
   * One renewal at a time; a failure past the time to live loses the lease. A store that does not
   * answer at all (paused, a lock never granted, packets dropped) loses it too: when its time to
   * live runs out with the renewal unanswered, or, for a renewal sent after that (a paused
   * process), once the renewal has taken as long as a lease lasts.
   */
  const renew = (): Promise<void> =>
    (renewing ??= (async () => {
      const sent = now();
      const answerBy = validUntil > sent ? validUntil : sent + ttlMs;
      try {
        lease = await answerWithin(leases.renew(lease, ttlMs), answerBy - sent, () => new UnansweredRenewal(unanswered('the renewal', answerBy - sent)));
        if (!lost) validUntil = sent + ttlMs;
      } catch (error) {
        if (error instanceof LeaseLostError) throw loseWith(error);
        // The store is unreachable: the lease holds until its time to live has passed.
        if (error instanceof UnansweredRenewal || now() >= validUntil) throw loseWith(expired(error));
      } finally {
        renewing = undefined;
      }
    })());

  return {
    epoch: lease.epoch,
    get lost() {
      return lost;
    },
    isCurrent: () => !lost && !released && now() < validUntil,
    renew: () => (lost || released ? Promise.resolve() : renew()),
    onLost(listener) {
      if (lost) {
        listener(lost);
        return () => undefined;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
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
      listeners.clear();
      await renewing?.catch(() => undefined);
      // A store that does not answer cannot take the lease back: it lapses by itself when its time to live has passed.
      const lapsesIn = validUntil - now();
      if (!lost) await answerWithin(leases.release(lease), lapsesIn, () => new StoreTimeoutError(unanswered('releasing the lease', lapsesIn)));
    },
  };
}

/** A renewal the store did not answer in time: the lease is lost whatever the clock says. */
class UnansweredRenewal extends Error {
  override readonly name = 'UnansweredRenewal';
}

function unanswered(what: string, ms: number): string {
  return `the store did not answer ${what} within ${Math.max(0, Math.round(ms))} ms`;
}

/**
 * Renews `lease` every `intervalMs` (at least 50) until the returned function is called or the
 * lease is lost. A renewal that fails is left to the lease's own rules (see {@link acquireLease}).
 *
 * @example
 * ```ts
 * const stop = renewLeasePeriodically(lease, Math.floor(ttlMs / 3));
 * ```
 */
export function renewLeasePeriodically(lease: HeldLease, intervalMs: number): () => void {
  const timer = setInterval(() => {
    if (!lease.lost) lease.renew().catch(() => undefined);
  }, Math.max(50, Math.floor(intervalMs)));
  timer.unref?.();
  const stopOnLoss = lease.onLost(() => clearInterval(timer));
  return () => {
    clearInterval(timer);
    stopOnLoss();
  };
}

/** How often a lease of `ttlMs` is renewed: every third of its time to live. */
export function renewalInterval(ttlMs: number): number {
  return Math.floor(ttlMs / 3);
}

/**
 * Acquires a session's lease and keeps it: renewed every third of its time to live
 * ({@link acquireLease} says when it is lost). `onLost` runs once when it is.
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
  const lease = await acquireLease(options);
  lease.onLost(options.onLost);
  const stopRenewing = renewLeasePeriodically(lease, renewalInterval(options.ttlMs));
  return {
    ...lease,
    get lost() {
      return lease.lost;
    },
    async release() {
      stopRenewing();
      await lease.release();
    },
  };
}
