/**
 * What every `SessionStore` promises, as one suite: run against `fileStore`
 * and `pgStore` so that both keep the same contract (records in order, one
 * writer, sessions that are gone stay gone, leases with fencing).
 */
import { describe, expect, it } from 'vitest';
import { tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { createAgent, type RunResult } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
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

    it('refuses, everywhere, the session ids every store refuses', async () => {
      const { store } = await setUp();
      for (const id of ['.hidden', 'a/b', 'chat:7', 'chat%7', 'x'.repeat(129)]) {
        await expect(store.read(id)).rejects.toBeInstanceOf(TypeError);
        await expect(store.create(sessionHeader(id))).rejects.toBeInstanceOf(TypeError);
        await expect(store.append(id, [message(0)])).rejects.toBeInstanceOf(TypeError);
        if (store.leases) await expect(store.leases.acquire(id, 'worker-a', 1_000)).rejects.toBeInstanceOf(TypeError);
      }
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
        // Released is let go: a renewal sent after it (a timer that fired late, or a release forced by an operator) does not take the session back.
        await expect(store.leases!.renew(renewed, 60_000)).rejects.toThrow(/released/);
        await expect(store.leases!.renew(renewed, 60_000)).rejects.toBeInstanceOf(LeaseLostError);
        const next = await sameDataElsewhere().leases!.acquire(id, 'worker-b', 60_000);
        expect(next.epoch).toBe(lease.epoch + 1);
        await store.leases!.release(renewed); // already lost: left alone
        await expect(store.leases!.acquire(id, 'worker-a', 60_000)).rejects.toBeInstanceOf(LeaseHeldError);
      });
    });

    describe('an agent whose lease is lost', () => {
      /** The store as its agent reaches it, with renewals that fail as a cut connection makes them while `cut` is set. */
      const withRenewalsCut = (store: SessionStore) => {
        const state = { cut: false };
        const leases = store.leases!;
        const cutStore: SessionStore = {
          ...store,
          leases: {
            ...leases,
            acquire: (...args) => leases.acquire(...args),
            release: (...args) => leases.release(...args),
            renew: (...args) => (state.cut ? Promise.reject(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })) : leases.renew(...args)),
          },
        };
        return { cutStore, state };
      };
      /** A tool that counts its runs and waits (until aborted) while the test does what it must. */
      const waitingTool = () => {
        const runs: string[] = [];
        let started: () => void = () => undefined;
        const running = new Promise<void>((resolve) => (started = resolve));
        const wait = tool({
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }, { abortSignal }) => {
            runs.push(`wait ${n}`);
            started();
            await new Promise<void>((resolve) => abortSignal?.addEventListener('abort', () => resolve(), { once: true }));
            return 'waited';
          },
        });
        return { runs, running, wait };
      };
      /**
       * Waits for the tool to start. The lease lasts 1.5 s: long enough that a loaded machine does not
       * lose it before the tool starts (which would be right, but not this test's case), short enough
       * for a lapse to come soon. Should it be lost first all the same, the test says so instead of waiting.
       */
      const toolStarted = (running: Promise<void>, result: Promise<RunResult>) =>
        Promise.race([
          running,
          result.then((ended) => {
            throw new Error(`the run ended ${ended.outcome} (${ended.error?.message ?? 'no error'}) before its tool started`);
          }),
        ]);
      const takeOver = async (store: SessionStore, sessionId: string) => {
        for (;;) {
          try {
            return await store.leases!.acquire(sessionId, 'worker-b', 60_000);
          } catch (error) {
            if (!(error instanceof LeaseHeldError)) throw error;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      };

      it('while it sits in a tool (renewals failing past its time to live, another worker taking the session) starts no model call or tool after it, and ends failed/session-write', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const { cutStore, state } = withRenewalsCut(store);
        const sessionId = newId();
        const model = scriptedModel([
          { toolCalls: [{ name: 'wait', input: { n: 1 } }] },
          { toolCalls: [{ name: 'wait', input: { n: 2 } }] },
          { text: 'done' },
        ]);
        const { runs, running, wait } = waitingTool();
        const agent = createAgent({ model, tools: { wait }, store: cutStore, sessionId, lease: { owner: 'worker-a', ttlMs: 1500 } });
        const result = agent.run('go');
        await toolStarted(running, result);
        state.cut = true;
        await takeOver(sameDataElsewhere(), sessionId);
        const ended = await result;
        expect(ended.outcome).toBe('failed');
        expect(ended.error).toMatchObject({ kind: 'session-write', message: expect.stringMatching(/lease/) });
        expect(model.calls).toHaveLength(1);
        expect(runs).toEqual(['wait 1']);
        await agent.dispose();
        // Nothing of it after the takeover: the store holds the session as of the step's checkpoint.
        const log = await sameDataElsewhere().read(sessionId);
        expect(log?.records.filter((record) => record.type === 'checkpoint').map((record) => (record as { state: string }).state).at(-1)).toBe('running.llm.calling');
      });

      it('at a write the store refuses late starts nothing after it: no model call or tool waits on a boundary that is not written', async () => {
        const { store } = await setUp();
        const sessionId = newId();
        let answer: (() => void) | undefined;
        let asked: () => void = () => undefined;
        const refusalAsked = new Promise<void>((resolve) => (asked = resolve));
        let writes = 0;
        const slowRefusals: SessionStore = {
          ...store,
          append: async (...args) => {
            // The boundary before the second model call: the store takes its time, then refuses it.
            if (++writes === 2) {
              const answered = new Promise<void>((resolve) => (answer = resolve));
              asked();
              await answered;
              throw new LeaseLostError(`session ${sessionId}: this writer's lease (epoch 1) was taken by worker-b (epoch 2); nothing was written`);
            }
            return store.append(...args);
          },
        };
        const model = scriptedModel([{ toolCalls: [{ name: 'count', input: { n: 1 } }] }, { toolCalls: [{ name: 'count', input: { n: 2 } }] }, { text: 'done' }]);
        const runs: number[] = [];
        const count = tool({ inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => runs.push(n) });
        const agent = createAgent({ model, tools: { count }, store: slowRefusals, sessionId, lease: { owner: 'worker-a', ttlMs: 60_000 } });
        const result = agent.run('go');
        await refusalAsked;
        // However long the store takes, the next call waits for its answer (a call made at once would be made by now).
        for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
        expect(model.calls).toHaveLength(1);
        answer!();
        expect(await result).toMatchObject({ outcome: 'failed', error: { kind: 'session-write' } });
        expect(model.calls).toHaveLength(1);
        expect(runs).toEqual([1]);
        await agent.dispose();
      });

      it('a write whose connection is cut is tried again while the lease holds, and one that landed though its reply was lost is not written twice', async () => {
        const { store } = await setUp();
        const sessionId = newId();
        let writes = 0;
        const cut = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        const flaky: SessionStore = {
          ...store,
          append: async (...args) => {
            writes++;
            if (writes === 2) throw cut(); // refused before it reached the store
            if (writes === 4) {
              await store.append(...args); // landed, but the answer never came back
              throw cut();
            }
            return store.append(...args);
          },
        };
        const model = scriptedModel([{ toolCalls: [{ name: 'count', input: { n: 1 } }] }, { toolCalls: [{ name: 'count', input: { n: 2 } }] }, { text: 'done' }]);
        const runs: number[] = [];
        const count = tool({ inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => runs.push(n) });
        const agent = createAgent({ model, tools: { count }, store: flaky, sessionId, lease: { owner: 'worker-a', ttlMs: 60_000 } });
        expect(await agent.run('go')).toMatchObject({ outcome: 'completed', text: 'done' });
        await agent.dispose();
        expect(runs).toEqual([1, 2]);
        const log = await store.read(sessionId);
        const checkpoints = log!.records.filter((record) => record.type === 'checkpoint');
        expect(checkpoints.map((record) => record.id)).toEqual([1, 2, 3, 4]);
        expect(log!.records.filter((record) => record.type === 'message').map((record) => record.index)).toEqual([0, 1, 2, 3, 4, 5]);
      });

      it('to another owner while its store is reachable, stops at the renewal that finds it, before the next model call', async () => {
        const { store, sameDataElsewhere } = await setUp();
        const sessionId = newId();
        const model = scriptedModel([{ toolCalls: [{ name: 'wait', input: { n: 1 } }] }, { text: 'done' }]);
        const { runs, running, wait } = waitingTool();
        const agent = createAgent({ model, tools: { wait }, store, sessionId, lease: { owner: 'worker-a', ttlMs: 1500 } });
        const result = agent.run('go');
        await toolStarted(running, result);
        // Forced from under it, as by an operator: released (a new session's first lease is epoch 1), then taken.
        const other = sameDataElsewhere();
        await other.leases!.release({ sessionId, owner: 'worker-a', epoch: 1, expiresAt: 0 });
        await takeOver(other, sessionId);
        const ended = await result;
        expect(ended).toMatchObject({ outcome: 'failed', error: { kind: 'session-write' } });
        expect(model.calls).toHaveLength(1);
        expect(runs).toEqual(['wait 1']);
        await agent.dispose();
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

