import { describe, expect, it } from 'vitest';
import { createAgent, fileStore, type AgentEvent, type SessionStore } from '../../src/index.js';
import { expectValidHistory } from '../support/history.js';
import { mockModel } from '../support/mock-model.js';
import { recordEvents } from '../support/record.js';
import { addTool } from '../support/tools.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-unanswering-');

/** `fileStore` until `fallSilent()`: from then on no append, renewal or release is ever answered (a paused database, a lock never granted). */
function storeThatFallsSilent(inner: SessionStore, { readsToo = false } = {}): { store: SessionStore; fallSilent(): void } {
  let silent = false;
  const never = () => new Promise<never>(() => undefined);
  const leases = inner.leases!;
  return {
    fallSilent: () => (silent = true),
    store: {
      read: (sessionId) => (silent && readsToo ? never() : inner.read(sessionId)),
      create: (header) => inner.create(header),
      append: (sessionId, records, options) => (silent ? never() : inner.append(sessionId, records, options)),
      leases: {
        acquire: (sessionId, owner, ttlMs) => leases.acquire(sessionId, owner, ttlMs),
        renew: (lease, ttlMs) => (silent ? never() : leases.renew(lease, ttlMs)),
        release: (lease) => (silent ? never() : leases.release(lease)),
      },
    },
  };
}

describe('a store that stops answering', () => {
  // Silent from the tool's start, a step boundary's write is in flight when the lease runs out (and holds every event after it);
  // silent from the tool's result, that write landed and the run waits on a model call that never answers.
  it.each([
    { from: 'tool-execution-start' as const, stored: { state: 'running.llm.calling', step: 1, messageCount: 1 } },
    { from: 'tool-result' as const, stored: { state: 'running.llm.calling', step: 2, messageCount: 3 } },
  ])('silent from $from: the run ends failed (session-write) once the lease runs out unrenewed, with a valid history, and dispose completes', async ({ from, stored }) => {
    const inner = fileStore(dir());
    const { store, fallSilent } = storeThatFallsSilent(inner);
    // The answer never comes either: only the lost lease can end this run.
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'], holdBeforeFirst: true }]);
    const agent = createAgent({ model, tools: { add: addTool }, store, sessionId: 's', lease: { owner: 'worker-a', ttlMs: 600 } });
    const events = recordEvents(agent);
    const silence = agent.events$.subscribe((event) => {
      if (event.type === from) fallSilent();
    });

    const result = await agent.run('add 1 and 2');
    silence.unsubscribe();

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'session-write', message: expect.stringMatching(/the store did not answer the renewal within \d+ ms/) });
    await expectValidHistory(result.messages);
    const warnings = events.filter((event): event is Extract<AgentEvent, { type: 'session-warning' }> => event.type === 'session-warning');
    expect(warnings.map((warning) => warning.message)).toEqual([result.error!.message]);
    expect(events.at(-1)?.type).toBe('run-end');
    await agent.dispose();
    // What landed before the store fell silent is there for the next worker, which resumes the run from it.
    const log = await inner.read('s');
    const checkpoints = log!.records.filter((record) => record.type === 'checkpoint');
    expect(checkpoints.at(-1)).toMatchObject(stored);
  });

  it('silent while the session opens (its read never answered): run() is refused with the lost lease, and dispose completes', async () => {
    const { store, fallSilent } = storeThatFallsSilent(fileStore(dir()), { readsToo: true });
    const agent = createAgent({ model: mockModel([{ text: ['never asked'] }]), store, sessionId: 'opening', lease: { owner: 'worker-a', ttlMs: 300 } });
    fallSilent(); // the lease is acquired when the agent opens, then nothing more is answered
    await expect(agent.run('hello')).rejects.toThrow(/the lease of worker-a \(epoch \d+\) ran out without a renewal \(last attempt: the store did not answer the renewal/);
    await agent.dispose();
  });

  it('without a lease, silent from the tool\'s start: the write fails after timeout.storeMs, the run ends failed (session-write), and dispose completes', async () => {
    const { store, fallSilent } = storeThatFallsSilent(fileStore(dir()));
    const agent = createAgent({ model: mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]), tools: { add: addTool }, store, sessionId: 'no-lease', timeout: { storeMs: 2_000 } });
    const silence = agent.events$.subscribe((event) => {
      if (event.type === 'tool-execution-start') fallSilent();
    });
    const result = await agent.run('add 1 and 2');
    silence.unsubscribe();
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'session-write', message: expect.stringContaining('the session store did not answer an append to session no-lease within 2000 ms') });
    await expectValidHistory(result.messages);
    await agent.dispose();
  });

  it('without a lease, silent while the session opens: run() is refused with a StoreTimeoutError after timeout.storeMs', async () => {
    const { store, fallSilent } = storeThatFallsSilent(fileStore(dir()), { readsToo: true });
    fallSilent();
    const agent = createAgent({ model: mockModel([{ text: ['never asked'] }]), store, sessionId: 'opening-no-lease', timeout: { storeMs: 300 } });
    await expect(agent.run('hello')).rejects.toThrow('the session store did not answer a read of session opening-no-lease within 300 ms');
    await agent.dispose();
  });
});
