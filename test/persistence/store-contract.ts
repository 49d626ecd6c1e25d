/**
 * What every `SessionStore` promises, as one suite: run against `fileStore`
 * and `pgStore` so that both keep the same contract (records in order, one
 * writer, sessions that are gone stay gone, leases with fencing).
 */
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from 'ai';
import { createAgent } from '../../src/index.js';
import { scriptedModel } from '../../src/models/index.js';
import {
  LeaseHeldError,
  LeaseLostError,
  SessionConflictError,
  SessionMissingError,
  sessionHeader,
  type SessionRecord,
  type SessionStore,
} from '../../src/persistence/session-store.js';

export interface StoreUnderTest {
  store: SessionStore;
  /** A second store on the same data, as another process would open it. */
  sameDataElsewhere(): SessionStore;
  /** Removes a session behind the store's back (an operator deleting it). */
  deleteBehindItsBack(sessionId: string): Promise<void>;
}

let counter = 0;
const newId = () => `contract-${process.pid}-${Date.now()}-${counter++}`;
const message = (index: number): SessionRecord => ({ type: 'message', index, message: { role: 'user', content: `message ${index}` } });

export function sessionStoreContract(name: string, setUp: () => StoreUnderTest | Promise<StoreUnderTest>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`${name} keeps the SessionStore contract`, () => {
    it('reads back what was appended, in order, and knows no session it never created', async () => {
      const { store } = await setUp();
      const id = newId();
      expect(await store.read(id)).toBeUndefined();
      const created = await store.create(sessionHeader(id));
      const first = await store.append(id, [message(0), message(1)], { after: created as number });
      await store.append(id, [message(2)], { after: first as number });
      const log = await store.read(id);
      expect(log?.header.sessionId).toBe(id);
      expect(log?.records.map((record) => (record.type === 'message' ? record.index : -1))).toEqual([0, 1, 2]);
      expect(log?.warnings).toEqual([]);
    });

    it('refuses to create a session twice', async () => {
      const { store } = await setUp();
      const id = newId();
      await store.create(sessionHeader(id));
      await expect(store.create(sessionHeader(id))).rejects.toThrow();
    });

    it('refuses a writer whose version is stale, writing nothing', async () => {
      const { store, sameDataElsewhere } = await setUp();
      const id = newId();
      const version = await store.create(sessionHeader(id));
      await sameDataElsewhere().append(id, [message(0)], { after: version as number });
      await expect(store.append(id, [message(1)], { after: version as number })).rejects.toBeInstanceOf(SessionConflictError);
      expect((await store.read(id))?.records).toHaveLength(1);
    });

    it('lets exactly one of many writers with the same version through', async () => {
      const { store, sameDataElsewhere } = await setUp();
      const id = newId();
      const version = await store.create(sessionHeader(id));
      const writers = Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? store : sameDataElsewhere()));
      const results = await Promise.allSettled(writers.map((writer, index) => writer.append(id, [message(index)], { after: version as number })));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'rejected').every((result) => (result).reason instanceof SessionConflictError)).toBe(true);
      expect((await store.read(id))?.records).toHaveLength(1);
    });

    it('does not recreate a session deleted while open', async () => {
      const { store, deleteBehindItsBack } = await setUp();
      const id = newId();
      await store.create(sessionHeader(id));
      await deleteBehindItsBack(id);
      await expect(store.append(id, [message(0)])).rejects.toBeInstanceOf(SessionMissingError);
      expect(await store.read(id)).toBeUndefined();
    });

    describe('leases', () => {
      it('gives a session to one owner at a time, and to the next once it lapses, with a higher epoch', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const id = newId();
        const first = await store.leases!.acquire(id, 'worker-a', 0);
        const second = await sameDataElsewhere().leases!.acquire(id, 'worker-b', 60_000);
        expect(second.epoch).toBe(first.epoch + 1);
        await expect(store.leases!.acquire(id, 'worker-a', 60_000)).rejects.toBeInstanceOf(LeaseHeldError);
        await expect(store.leases!.renew(first, 60_000)).rejects.toBeInstanceOf(LeaseLostError);
      });

      it('lets exactly one of 20 concurrent acquirers win', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const id = newId();
        const stores = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : sameDataElsewhere()));
        const results = await Promise.allSettled(stores.map((each, index) => each.leases!.acquire(id, `worker-${index}`, 60_000)));
        const won = results.filter((result) => result.status === 'fulfilled');
        expect(won).toHaveLength(1);
        expect(results.filter((result) => result.status === 'rejected').every((result) => (result).reason instanceof LeaseHeldError)).toBe(true);
      });

      it('refuses the append of a writer whose lease was taken, writing nothing', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const id = newId();
        const version = await store.create(sessionHeader(id));
        const stale = await store.leases!.acquire(id, 'worker-a', 0);
        const fresh = await sameDataElsewhere().leases!.acquire(id, 'worker-b', 60_000);
        await expect(store.append(id, [message(0)], { after: version as number, epoch: stale.epoch })).rejects.toBeInstanceOf(LeaseLostError);
        await expect(store.append(id, [message(0)], { after: version as number })).rejects.toBeInstanceOf(LeaseHeldError);
        expect((await store.read(id))?.records).toHaveLength(0);
        await sameDataElsewhere().append(id, [message(0)], { after: version as number, epoch: fresh.epoch });
        expect((await store.read(id))?.records).toHaveLength(1);
      });

      it('renews a lease nobody took, and frees it at release', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const id = newId();
        const lease = await store.leases!.acquire(id, 'worker-a', 0);
        const renewed = await store.leases!.renew(lease, 60_000);
        expect(renewed.epoch).toBe(lease.epoch);
        expect(renewed.expiresAt).toBeGreaterThan(lease.expiresAt);
        await expect(sameDataElsewhere().leases!.acquire(id, 'worker-b', 60_000)).rejects.toBeInstanceOf(LeaseHeldError);
        await store.leases!.release(renewed);
        const next = await sameDataElsewhere().leases!.acquire(id, 'worker-b', 60_000);
        expect(next.epoch).toBe(lease.epoch + 1);
        await store.leases!.release(renewed); // already lost: left alone
        await expect(store.leases!.acquire(id, 'worker-a', 60_000)).rejects.toBeInstanceOf(LeaseHeldError);
      });
    });

    it('keeps an agent session: a second agent continues the history a first one wrote', async () => {
      const { store, sameDataElsewhere } = await setUp();
      const sessionId = newId();
      const model = () => scriptedModel([{ text: 'first answer' }, { text: 'second answer' }]);
      const first = createAgent({ model: model(), store, sessionId, lease: { owner: 'worker-a' } });
      expect((await first.run('one')).outcome).toBe('completed');
      await first.dispose();
      const second = createAgent({ model: scriptedModel([{ text: 'second answer' }]), store: sameDataElsewhere(), sessionId, lease: { owner: 'worker-b' } });
      expect((await second.run('two')).outcome).toBe('completed');
      await second.dispose();
      const texts = second.messages.map((each: ModelMessage) => (typeof each.content === 'string' ? each.content : each.content.map((part) => ('text' in part ? part.text : '')).join('')));
      expect(texts).toEqual(['one', 'first answer', 'two', 'second answer']);
    });
  });
}
