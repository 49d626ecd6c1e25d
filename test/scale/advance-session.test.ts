import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, fileStore } from '../../src/index.js';
import { scriptedModel } from '../../src/models/index.js';
import { LeaseHeldError } from '../../src/persistence/session-store.js';
import { advanceSession, SessionInputError, type SessionInput } from '../../src/scale/advance-session.js';
import { expectValidHistory } from '../support/history.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'loopchart-advance-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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

describe('advanceSession', () => {
  it('runs a prompt to its end and applies a retried request only once', async () => {
    const store = fileStore(dir);
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
    const store = fileStore(dir);
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
    const store = fileStore(dir);
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
    const store = fileStore(dir);
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
    const store = fileStore(dir);
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
