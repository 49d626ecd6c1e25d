import { describe, expect, it, vi } from 'vitest';
import { acquireLease, holdLease } from '../../src/persistence/lease-keeper.js';
import { LeaseLostError, type SessionLease, type SessionLeases } from '../../src/persistence/session-store.js';
import { StoreTimeoutError } from '../../src/persistence/store-timeout-error.js';
import { isRetryableSessionError } from '../../src/scale/retryable-error.js';

/** Leases whose answers the test decides, on a clock the test moves. */
function fakeLeases() {
  const clock = { now: 1_000 };
  const calls: string[] = [];
  let renewal: 'ok' | 'unreachable' | 'taken' = 'ok';
  const leases: SessionLeases = {
    acquire: async (sessionId, owner, ttlMs) => {
      calls.push('acquire');
      return { sessionId, owner, epoch: 7, expiresAt: clock.now + ttlMs };
    },
    renew: async (lease: SessionLease, ttlMs) => {
      calls.push(`renew:${renewal}`);
      if (renewal === 'unreachable') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      if (renewal === 'taken') throw new LeaseLostError('taken by worker-b (epoch 8)');
      return { ...lease, expiresAt: clock.now + ttlMs };
    },
    release: async () => {
      calls.push('release');
    },
  };
  return { leases, clock, calls, renewWill: (next: typeof renewal) => (renewal = next) };
}

const ttlMs = 60_000; // the renewal timer never fires within a test; the test moves the clock instead

describe('a held lease', () => {
  it('is held within its time to live without asking the store', async () => {
    const { leases, clock, calls } = fakeLeases();
    const lease = await holdLease({ leases, sessionId: 's', owner: 'a', ttlMs, onLost: vi.fn(), now: () => clock.now });
    clock.now += ttlMs - 1;
    await lease.ensureHeld();
    expect(calls).toEqual(['acquire']);
    expect(lease.epoch).toBe(7);
    await lease.release();
  });

  it('past its time to live (a paused process) is renewed before anything starts, and holds when the renewal succeeds', async () => {
    const { leases, clock, calls } = fakeLeases();
    const onLost = vi.fn();
    const lease = await holdLease({ leases, sessionId: 's', owner: 'a', ttlMs, onLost, now: () => clock.now });
    clock.now += ttlMs * 3;
    await lease.ensureHeld();
    expect(calls).toEqual(['acquire', 'renew:ok']);
    expect(onLost).not.toHaveBeenCalled();
    await lease.release();
  });

  it('past its time to live with the store unreachable is lost: ensureHeld rejects and onLost runs once', async () => {
    const { leases, clock, renewWill } = fakeLeases();
    const onLost = vi.fn();
    const lease = await holdLease({ leases, sessionId: 's', owner: 'a', ttlMs, onLost, now: () => clock.now });
    renewWill('unreachable');
    clock.now += ttlMs;
    await expect(lease.ensureHeld()).rejects.toThrow(/ran out without a renewal \(last attempt: connect ECONNREFUSED/);
    await expect(lease.ensureHeld()).rejects.toBeInstanceOf(LeaseLostError);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(lease.lost).toBeInstanceOf(LeaseLostError);
    expect(lease.epoch).toBe(7);
  });

  it('within its time to live survives an unreachable store', async () => {
    const { leases, clock, renewWill } = fakeLeases();
    const onLost = vi.fn();
    const lease = await holdLease({ leases, sessionId: 's', owner: 'a', ttlMs, onLost, now: () => clock.now });
    renewWill('unreachable');
    clock.now += ttlMs / 2;
    await lease.ensureHeld();
    expect(onLost).not.toHaveBeenCalled();
    await lease.release();
  });

  it('taken by another owner is lost at the renewal that finds it, and is not released over the new owner', async () => {
    const { leases, clock, calls, renewWill } = fakeLeases();
    const onLost = vi.fn();
    const lease = await holdLease({ leases, sessionId: 's', owner: 'a', ttlMs, onLost, now: () => clock.now });
    renewWill('taken');
    clock.now += ttlMs;
    await expect(lease.ensureHeld()).rejects.toThrow(/taken by worker-b/);
    expect(onLost).toHaveBeenCalledWith(expect.any(LeaseLostError));
    await lease.release();
    expect(calls).toEqual(['acquire', 'renew:taken']);
  });

  it('counts its time to live from when a renewal was sent, not answered', async () => {
    const { leases, clock } = fakeLeases();
    let answer: (() => void) | undefined;
    let renewals = 0;
    const slow: SessionLeases = {
      ...leases,
      renew: (lease, ms) =>
        new Promise((resolve) => {
          renewals++;
          answer = () => resolve({ ...lease, expiresAt: clock.now + ms });
        }),
    };
    const lease = await holdLease({ leases: slow, sessionId: 's', owner: 'a', ttlMs, onLost: vi.fn(), now: () => clock.now });
    clock.now += ttlMs;
    const held = lease.ensureHeld();
    clock.now += ttlMs / 2; // the store answers half a lease later
    answer!();
    await held;
    clock.now += ttlMs / 2; // a full lease after the renewal was sent: the store may have let it lapse
    const again = lease.ensureHeld();
    answer!();
    await again;
    expect(renewals).toBe(2);
    await lease.release();
  });

  it('is lost when the store never answers a renewal: at the end of its time to live, not never', async () => {
    const { leases } = fakeLeases();
    const silent: SessionLeases = { ...leases, renew: () => new Promise(() => undefined) };
    const shortTtlMs = 150; // a real clock: the lease is renewed every 50 ms and must be found lost by itself
    const lostWith = new Promise<LeaseLostError>((resolve) => {
      void holdLease({ leases: silent, sessionId: 's', owner: 'a', ttlMs: shortTtlMs, onLost: resolve });
    });
    const error = await lostWith;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error.message).toMatch(/ran out without a renewal \(last attempt: the store did not answer the renewal within \d+ ms\)/);
  });

  it('past its time to live, ensureHeld rejects once a renewal has gone unanswered for as long as a lease lasts', async () => {
    const { leases } = fakeLeases();
    let silent = false;
    const leasesThatFallSilent: SessionLeases = { ...leases, renew: (lease, ms) => (silent ? new Promise(() => undefined) : leases.renew(lease, ms)) };
    const clock = { now: 0 };
    const onLost = vi.fn();
    const lease = await holdLease({ leases: leasesThatFallSilent, sessionId: 's', owner: 'a', ttlMs: 100, onLost, now: () => clock.now });
    silent = true;
    clock.now += 1_000; // a paused process: the renewal made now is its only chance, and the store never answers it
    await expect(lease.ensureHeld()).rejects.toThrow(/did not answer the renewal within 100 ms/);
    expect(onLost).toHaveBeenCalledTimes(1);
    await lease.release();
  });

  it('is refused when the store never answers its acquisition, once the lease would have run out', async () => {
    const { leases } = fakeLeases();
    const silent: SessionLeases = { ...leases, acquire: () => new Promise(() => undefined) };
    await expect(acquireLease({ leases: silent, sessionId: 's', owner: 'a', ttlMs: 100 })).rejects.toThrow(/did not answer acquiring the lease of session s within 100 ms/);
  });

  it('answered too late, is a timeout another attempt may get past, and the lease it took after all is given back', async () => {
    const { leases, calls } = fakeLeases();
    let answer!: () => void;
    const late: SessionLeases = {
      ...leases,
      acquire: (sessionId, owner, ttl) => new Promise<void>((resolve) => (answer = resolve)).then(() => leases.acquire(sessionId, owner, ttl)),
    };
    const refused = await acquireLease({ leases: late, sessionId: 's', owner: 'a', ttlMs: 100 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreTimeoutError);
    expect(isRetryableSessionError(refused)).toBe(true);
    answer();
    await vi.waitFor(() => expect(calls).toEqual(['acquire', 'release']), { timeout: 30_000 });
  });

  it('is let go without waiting for ever on a store that never answers the release: it lapses by itself', async () => {
    const { leases } = fakeLeases();
    const lease = await acquireLease({ leases: { ...leases, release: () => new Promise(() => undefined) }, sessionId: 's', owner: 'a', ttlMs: 100 });
    await expect(lease.release()).rejects.toThrow(/did not answer releasing the lease within \d+ ms/);
  });
});
