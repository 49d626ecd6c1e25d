import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, fileStore } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { LeaseHeldError, type SessionLease, type SessionStore } from '../../src/persistence/session-store.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { SessionRequestError } from '../../src/scale/session-request.js';
import { SessionSupersededError } from '../../src/scale/session-attempts.js';
import { SessionNotDurableError } from '../../src/scale/session-not-durable-error.js';
import { isRetryableSessionError } from '../../src/scale/retryable-error.js';
import { advanceSession, SessionInputError, type SessionInput } from '../../src/scale/advance-session.js';
import { expectValidHistory } from '../support/history.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-advance-');

function deletingAgent(executions: string[]) {
  const model = scriptedModel([
    { toolCalls: [{ id: 'call-1', name: 'remove', input: { path: 'build' } }] },
    { text: 'Removed build.' },
    { text: 'Hello again.' },
  ]);
  const remove = tool({
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path: target }) => {
      executions.push(target);
      return `removed ${target}`;
    },
  });
  return { model, tools: { remove }, approval: { ask: ['remove'] } };
}

/** A tool that says when it has started and holds its call until `release()`. */
function heldTool() {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => undefined;
  const inTool = new Promise<void>((resolve) => (started = resolve));
  const work = tool({
    inputSchema: z.object({}),
    execute: async () => {
      started();
      await held;
      return 'worked';
    },
  });
  return { work, inTool, release: () => release() };
}

describe('advanceSession', () => {
  it('runs a prompt to its end and applies a retried request only once', async () => {
    const store = fileStore(dir());
    const model = scriptedModel([{ text: 'Hi there.' }]);
    const input = { type: 'prompt', prompt: 'hello' } as const;
    const first = await advanceSession({ store, sessionId: 's1', owner: 'worker-a', agent: { model }, input, requestId: 'msg-1' });
    expect(first).toMatchObject({ status: 'idle', applied: true, result: { outcome: 'completed', text: 'Hi there.' } });
    const retried = await advanceSession({ store, sessionId: 's1', owner: 'worker-b', agent: { model }, input, requestId: 'msg-1' });
    expect(retried).toMatchObject({ status: 'idle', applied: false });
    expect(model.calls).toHaveLength(1);
    const log = await store.read('s1');
    expect(log?.records.filter((record) => record.type === 'checkpoint' && record.requestIds?.includes('msg-1'))).toHaveLength(1);
  });

  it('stops at an approval, holds nothing while it waits, and lets another worker apply the answer once', async () => {
    const store = fileStore(dir());
    const executions: string[] = [];
    const agent = deletingAgent(executions);
    const asked = await advanceSession({ store, sessionId: 's2', owner: 'worker-a', agent, input: { type: 'prompt', prompt: 'clean up' }, requestId: 'msg-1' });
    expect(asked).toMatchObject({ status: 'awaiting-approval', applied: true, pending: [{ toolCallId: 'call-1', toolName: 'remove', input: { path: 'build' } }] });
    expect(executions).toEqual([]);
    // Nothing holds the session while it waits: any worker can take it at once.
    const lease = await store.leases!.acquire('s2', 'somebody', 60_000);
    await store.leases!.release(lease);

    const answered = await advanceSession({ store, sessionId: 's2', owner: 'worker-b', agent, input: { type: 'approve', toolCallId: 'call-1' }, requestId: 'approve-1' });
    expect(answered).toMatchObject({ status: 'idle', applied: true, result: { outcome: 'completed', text: 'Removed build.' } });
    const again = await advanceSession({ store, sessionId: 's2', owner: 'worker-c', agent, input: { type: 'approve', toolCallId: 'call-1' }, requestId: 'approve-1' });
    expect(again).toMatchObject({ status: 'idle', applied: false });
    expect(executions).toEqual(['build']);

    const reopened = createAgent({ model: agent.model, store, sessionId: 's2' });
    await reopened.ready();
    await expectValidHistory(reopened.messages);
    await reopened.dispose();
  });

  it('refuses an input that does not fit the session, changing nothing', async () => {
    const store = fileStore(dir());
    const agent = deletingAgent([]);
    await advanceSession({ store, sessionId: 's3', owner: 'worker-a', agent, input: { type: 'prompt', prompt: 'clean up' }, requestId: 'msg-1' });
    const before = (await store.read('s3'))!.records.length;
    await expect(advanceSession({ store, sessionId: 's3', owner: 'worker-a', agent, input: { type: 'prompt', prompt: 'and more' }, requestId: 'msg-2' })).rejects.toBeInstanceOf(SessionInputError);
    await expect(advanceSession({ store, sessionId: 's3', owner: 'worker-a', agent, input: { type: 'approve', toolCallId: 'nope' }, requestId: 'msg-3' })).rejects.toThrow(/not waiting for approval \(waiting: call-1\)/);
    await expect(advanceSession({ store, sessionId: 's3', owner: 'worker-a', agent, input: { type: 'teleport' } as never, requestId: 'msg-4' })).rejects.toThrow(/input/);
    expect((await store.read('s3'))!.records.length).toBe(before);
    const aborted = await advanceSession({ store, sessionId: 's3', owner: 'worker-a', agent, input: { type: 'abort' }, requestId: 'msg-5' });
    expect(aborted).toMatchObject({ status: 'idle', result: { outcome: 'aborted' } });
  });

  it('applies a live input once while the run goes on, and leaves one that does not fit to its durable copy', async () => {
    const store = fileStore(dir());
    let deliver: ((input: SessionInput, requestId: string) => void) | undefined;
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const wait = tool({
      inputSchema: z.object({}),
      execute: async (_input, { abortSignal }) => {
        started();
        await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve, { once: true }));
        return 'stopped';
      },
    });
    const model = scriptedModel([{ toolCalls: [{ id: 'call-1', name: 'wait', input: {} }] }, { text: 'never' }]);
    const advancing = advanceSession({
      store,
      sessionId: 's5',
      owner: 'worker-a',
      agent: { model, tools: { wait } },
      input: { type: 'prompt', prompt: 'wait' },
      requestId: 'msg-1',
      subscribeControl: (handler) => {
        deliver = handler;
        return () => (deliver = undefined);
      },
    });
    await toolStarted;
    deliver!({ type: 'approve', toolCallId: 'nope' }, 'approve-x'); // does not fit: ignored
    deliver!({ type: 'abort', reason: 'stop' }, 'abort-1');
    deliver!({ type: 'abort', reason: 'stop' }, 'abort-1'); // the same request again
    expect(await advancing).toMatchObject({ status: 'idle', result: { outcome: 'aborted' } });
    expect(deliver).toBeUndefined();
    const log = await store.read('s5');
    expect(log?.records.filter((record) => record.type === 'checkpoint' && record.requestIds?.includes('abort-1'))).toHaveLength(1);
  });

  it('does not advance a session another worker holds', async () => {
    const store = fileStore(dir());
    const holder = createAgent({ model: scriptedModel([]), store, sessionId: 's4', lease: { owner: 'worker-a' } });
    await holder.ready();
    await expect(
      advanceSession({ store, sessionId: 's4', owner: 'worker-b', agent: { model: scriptedModel([]) }, input: { type: 'resume' }, requestId: 'r-1' }),
    ).rejects.toBeInstanceOf(LeaseHeldError);
    await holder.dispose();
    expect(await advanceSession({ store, sessionId: 's4', owner: 'worker-b', agent: { model: scriptedModel([]) }, input: { type: 'resume' }, requestId: 'r-1' })).toMatchObject({
      status: 'idle',
      result: undefined,
    });
  });
});

describe('advanceSession at its seams', () => {
  it('refuses at the door a session id no store would take, the same rule everywhere', async () => {
    const store = fileStore(dir());
    const model = scriptedModel([{ text: 'never' }]);
    for (const sessionId of ['.hidden', 'a/b', 'chat%7', 'chat\\7', 'chat:7', '']) {
      await expect(advanceSession({ store, sessionId, owner: 'worker-a', agent: { model }, input: { type: 'prompt', prompt: 'hi' }, requestId: 'msg-1' })).rejects.toBeInstanceOf(SessionRequestError);
    }
    expect(model.calls).toHaveLength(0);
  });

  it('rejects an abort sent to an idle session, visibly, instead of accepting it and doing nothing', async () => {
    const store = fileStore(dir());
    await advanceSession({ store, sessionId: 'idle', owner: 'worker-a', agent: { model: scriptedModel([{ text: 'Hi.' }]) }, input: { type: 'prompt', prompt: 'hi' }, requestId: 'msg-1' });
    await expect(advanceSession({ store, sessionId: 'idle', owner: 'worker-a', agent: { model: scriptedModel([]) }, input: { type: 'abort' }, requestId: 'abort-1' })).rejects.toThrow(
      /cannot apply "abort" to the session: no run is active to abort/,
    );
  });

  it('applies a steer and a follow-up sent live while the run works, and records both as applied', async () => {
    const store = fileStore(dir());
    let deliver: ((input: SessionInput, requestId: string) => void) | undefined;
    const { work, inTool, release } = heldTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'work', input: {} }] }, { text: 'Steered.' }, { text: 'Followed up.' }]);
    const advanced = advanceSession({
      store,
      sessionId: 'live',
      owner: 'worker-a',
      agent: { model, tools: { work } },
      input: { type: 'prompt', prompt: 'go' },
      requestId: 'msg-1',
      subscribeControl: (give) => {
        deliver = give;
        return () => undefined;
      },
    });
    await inTool;
    deliver!({ type: 'steer', message: 'also check the logs' }, 'steer-1');
    deliver!({ type: 'follow-up', message: 'then summarise' }, 'follow-1');
    release();
    expect(await advanced).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Followed up.' } });
    const log = await store.read('live');
    const { messages } = replaySession(log!.records);
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['go', 'also check the logs', 'then summarise']);
    expect(log!.records.flatMap((record) => (record.type === 'checkpoint' ? (record.requestIds ?? []) : []))).toEqual(['msg-1', 'steer-1', 'follow-1']);
  });

  it('an attempt at another input of the same session waits for the one under way (the lease keeps them apart) instead of stopping it', async () => {
    const store = fileStore(dir());
    const { work, inTool, release } = heldTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'work', input: {} }] }, { text: 'Done.' }]);
    const first = advanceSession({ store, sessionId: 'apart', owner: 'worker-a', agent: { model, tools: { work } }, input: { type: 'prompt', prompt: 'go' }, requestId: 'msg-1' });
    await inTool;
    const second = advanceSession({ store, sessionId: 'apart', owner: 'worker-a', agent: { model, tools: { work } }, input: { type: 'abort' }, requestId: 'abort-1' });
    await expect(second).rejects.toBeInstanceOf(LeaseHeldError);
    release();
    expect(await first).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Done.' } });
  });

  it('a later attempt at the same input in the same process stops the earlier one first: never two agents on a session, and the earlier rejects', async () => {
    const store = fileStore(dir());
    let running = 0;
    let mostAtOnce = 0;
    const runs: string[] = [];
    let started: () => void = () => undefined;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const work = tool({
      inputSchema: z.object({}),
      execute: async (_input, { abortSignal }) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        runs.push(runs.length === 0 ? 'first' : 'again');
        try {
          if (runs.length === 1) {
            started();
            await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve, { once: true }));
            throw new Error('aborted');
          }
          return 'worked';
        } finally {
          running--;
        }
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'work', input: {} }] }, { toolCalls: [{ name: 'work', input: {} }] }, { text: 'Done.' }]);
    const options = { store, sessionId: 'twice', owner: 'worker-a', agent: { model, tools: { work } }, input: { type: 'prompt', prompt: 'go' } as const, requestId: 'msg-1' };
    const earlier = advanceSession(options);
    await firstStarted;
    const later = advanceSession(options);
    await expect(earlier).rejects.toBeInstanceOf(SessionSupersededError);
    expect(await later).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Done.' } });
    expect(mostAtOnce).toBe(1);
    expect(runs).toEqual(['first', 'again']);
    const { messages } = replaySession((await store.read('twice'))!.records);
    await expectValidHistory(messages);
  });

  it('a step boundary the store did not take fails the advance as retryable, and the next advance continues from the last one written', async () => {
    const dirStore = fileStore(dir());
    let refuseIdle = true;
    const store: SessionStore = {
      ...dirStore,
      append: async (sessionId, records, options) => {
        const last = records.at(-1);
        if (refuseIdle && last?.type === 'checkpoint' && last.state === 'idle') throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return dirStore.append(sessionId, records, options);
      },
    };
    const model = scriptedModel([{ text: 'First try.' }, { text: 'Second try.' }]);
    const advance = (requestId: string, input: SessionInput) => advanceSession({ store, sessionId: 'disk', owner: 'worker-a', agent: { model }, input, requestId });
    const failed = advance('msg-1', { type: 'prompt', prompt: 'hi' });
    await expect(failed).rejects.toBeInstanceOf(SessionNotDurableError);
    await expect(failed.catch((error: unknown) => isRetryableSessionError(error))).resolves.toBe(true);
    refuseIdle = false;
    expect(await advance('msg-1', { type: 'prompt', prompt: 'hi' })).toMatchObject({ status: 'idle', applied: false, result: { outcome: 'completed', text: 'Second try.' } });
  });

  it('events keep the epoch of the lease their worker acquired, also after it is lost', async () => {
    const files = fileStore(dir());
    let held: SessionLease | undefined;
    const store: SessionStore = { ...files, leases: { ...files.leases!, acquire: async (...args) => (held = await files.leases!.acquire(...args)) } };
    const epochs = new Set<number>();
    let started: () => void = () => undefined;
    const inTool = new Promise<void>((resolve) => (started = resolve));
    const wait = tool({
      inputSchema: z.object({}),
      execute: async (_input, { abortSignal }) => {
        started();
        await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve, { once: true }));
        return 'stopped';
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'wait', input: {} }] }, { text: 'never' }]);
    const advanced = advanceSession({
      store,
      sessionId: 'fenced',
      owner: 'worker-a',
      leaseTtlMs: 200,
      agent: { model, tools: { wait } },
      input: { type: 'prompt', prompt: 'go' },
      requestId: 'msg-1',
      onEvent: (_event, lease) => void epochs.add(lease.epoch),
    });
    await inTool;
    // Forced from under it, as by an operator: released, then taken.
    await files.leases!.release(held!);
    await files.leases!.acquire('fenced', 'worker-b', 60_000);
    await expect(advanced).rejects.toBeInstanceOf(SessionNotDurableError);
    expect([...epochs]).toEqual([1]);
    expect(model.calls).toHaveLength(1);
  });
});

describe('advanceSession when the store cannot take the lease back', () => {
  it('reports the work done: a release that fails (the store out of reach) leaves the lease to lapse', async () => {
    const files = fileStore(dir());
    const store: SessionStore = { ...files, leases: { ...files.leases!, release: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) } };
    const advanced = await advanceSession({ store, sessionId: 'unreleased', owner: 'worker-a', agent: { model: scriptedModel([{ text: 'Hi.' }]) }, input: { type: 'prompt', prompt: 'hi' }, requestId: 'msg-1' });
    expect(advanced).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Hi.' } });
  });
});

describe("advanceSession and the app's own onEvent", () => {
  it('a publisher that throws neither ends the process nor the advance: each event it refused is reported', async () => {
    const refused: string[] = [];
    const advanced = await advanceSession({
      store: fileStore(dir()),
      sessionId: 'throwing-publisher',
      owner: 'worker-a',
      agent: { model: scriptedModel([{ text: 'Hi.' }]) },
      input: { type: 'prompt', prompt: 'hi' },
      requestId: 'msg-1',
      onEvent: (event) => {
        if (event.type === 'message') throw new Error('broker refused');
      },
      onEventError: (error, event) => refused.push(`${event.type}: ${error.message}`),
    });
    expect(advanced).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Hi.' } });
    expect(refused).toHaveLength(2);
    expect(refused[0]).toBe('message: the message event of session throwing-publisher was not published: broker refused');
  });

  it('a publisher that never answers holds the advance for eventTimeoutMs, not for ever, and the session is durable', async () => {
    const store = fileStore(dir());
    const unanswered: string[] = [];
    const advanced = await advanceSession({
      store,
      sessionId: 'silent-publisher',
      owner: 'worker-a',
      agent: { model: scriptedModel([{ text: 'Hi.' }]) },
      input: { type: 'prompt', prompt: 'hi' },
      requestId: 'msg-1',
      onEvent: (event) => (event.type === 'run-end' ? new Promise(() => undefined) : Promise.resolve()),
      onEventError: (error, event) => unanswered.push(`${event.type}: ${error.message}`),
      eventTimeoutMs: 300,
    });
    expect(advanced).toMatchObject({ status: 'idle', result: { outcome: 'completed' } });
    expect(unanswered).toEqual(['run-end: the run-end event of session silent-publisher was not published: onEvent did not settle within 300 ms (eventTimeoutMs)']);
    const next = await advanceSession({ store, sessionId: 'silent-publisher', owner: 'worker-b', agent: { model: scriptedModel([{ text: 'Again.' }]) }, input: { type: 'prompt', prompt: 'again' }, requestId: 'msg-2' });
    expect(next).toMatchObject({ status: 'idle', result: { outcome: 'completed', text: 'Again.' } });
  });

  it('refuses an eventTimeoutMs that is not a positive number of ms, by name', async () => {
    const advance = advanceSession({ store: fileStore(dir()), sessionId: 's', owner: 'w', agent: { model: scriptedModel([]) }, input: { type: 'prompt', prompt: 'hi' }, requestId: 'r', eventTimeoutMs: 0 });
    await expect(advance).rejects.toBeInstanceOf(SessionRequestError);
    await expect(advance).rejects.toThrow(/eventTimeoutMs/);
  });
});
