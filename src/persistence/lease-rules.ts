import { LeaseHeldError, LeaseLostError, type SessionLease } from './session-store.js';

/** A session's lease as a store keeps it. */
export interface LeaseRow {
  owner: string;
  epoch: number;
  /** ms since the epoch; 0 once released. */
  expiresAt: number;
}

/**
 * The rules every store applies to leases, on the row it read under its lock
 * (`now` is the store's clock): the same decisions for `fileStore` and
 * `pgStore`, so both promise the same.
 */
export const leaseRules = {
  /** @throws LeaseHeldError when another owner's lease has not lapsed. */
  acquire(sessionId: string, current: LeaseRow | undefined, owner: string, ttlMs: number, now: number): SessionLease {
    if (current && current.owner !== owner && current.expiresAt > now) throw new LeaseHeldError(sessionId, current.owner, current.expiresAt);
    return { sessionId, owner, epoch: (current?.epoch ?? 0) + 1, expiresAt: now + ttlMs };
  },

  /**
   * A lapsed lease nobody took is renewed (its holder was paused); a released one is not: release
   * (by its holder, or forced by an operator) ends that lease, and renewing it would take the
   * session back from whoever is about to acquire it.
   * @throws LeaseLostError when the lease was acquired by anyone since, or released.
   */
  renew(current: LeaseRow | undefined, lease: SessionLease, ttlMs: number, now: number): SessionLease {
    if (!current || current.epoch !== lease.epoch || current.owner !== lease.owner) {
      throw new LeaseLostError(`session ${lease.sessionId}: the lease of ${lease.owner} (epoch ${lease.epoch}) was taken${current ? ` by ${current.owner} (epoch ${current.epoch})` : ''}`);
    }
    if (current.expiresAt === 0) throw new LeaseLostError(`session ${lease.sessionId}: the lease of ${lease.owner} (epoch ${lease.epoch}) was released`);
    return { ...lease, expiresAt: now + ttlMs };
  },

  /** The row after `lease` is released; undefined when it is no longer that lease (nothing to do). */
  release(current: LeaseRow | undefined, lease: SessionLease): LeaseRow | undefined {
    if (!current || current.epoch !== lease.epoch || current.owner !== lease.owner) return undefined;
    return { ...current, expiresAt: 0 };
  },

  /**
   * Whether a write may land: a fenced write (`epoch`) only under that very lease; an unfenced
   * one only while nobody holds an unexpired lease.
   * @throws LeaseLostError / LeaseHeldError
   */
  checkWrite(sessionId: string, current: LeaseRow | undefined, epoch: number | undefined, now: number): void {
    if (epoch === undefined) {
      if (current && current.expiresAt > now) throw new LeaseHeldError(sessionId, current.owner, current.expiresAt);
      return;
    }
    if (!current || current.epoch !== epoch) {
      throw new LeaseLostError(
        `session ${sessionId}: this writer's lease (epoch ${epoch}) was taken${current ? ` by ${current.owner} (epoch ${current.epoch})` : ''}; nothing was written`,
      );
    }
  },
};
