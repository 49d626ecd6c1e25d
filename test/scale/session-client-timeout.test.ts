/**
 * `sessionClient` against a system database that stops answering (a paused Postgres, a dropped
 * route): `send` and `activeTurn` reject once `timeoutMs` has passed instead of holding the web
 * request for ever. The DBOS client is a stand-in whose calls never settle; the calls' routing is
 * tested against real workers in test/scale/session-routing.test.ts.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { CONTROL_NOT_PUBLISHED_WARNING, sessionClient } from '../../src/dbos/session-client.js';
import type { ControlChannel } from '../../src/dbos/pg-control-channel.js';
import { StoreTimeoutError } from '../../src/persistence/store-timeout-error.js';
import { isRetryableSessionError } from '../../src/scale/retryable-error.js';

/** A DBOS client whose every call waits for an answer that never comes. */
function unansweringClient(): { client: DBOSClient; calls: string[] } {
  const calls: string[] = [];
  const never = (name: string) => () => {
    calls.push(name);
    return new Promise(() => undefined);
  };
  const client = { enqueue: never('enqueue'), listWorkflows: never('listWorkflows'), send: never('send'), getEvent: never('getEvent') } as unknown as DBOSClient;
  return { client, calls };
}

describe('sessionClient on a system database that stops answering', () => {
  it('rejects a prompt with a retryable StoreTimeoutError once timeoutMs has passed', async () => {
    const { client, calls } = unansweringClient();
    const sent = sessionClient(client, { timeoutMs: 200 }).send('chat-1', { type: 'prompt', prompt: 'hi' }, 'msg-1');
    const error = await sent.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as Error).message).toBe('sessionClient.send (prompt, request msg-1): the system database did not answer within 200 ms (timeoutMs)');
    expect(isRetryableSessionError(error)).toBe(true);
    expect(calls).toEqual(['enqueue']);
  });

  it('bounds activeTurn, and an abort that first looks for the turn in progress', async () => {
    const { client } = unansweringClient();
    const sessions = sessionClient(client, { timeoutMs: 200 });
    await expect(sessions.activeTurn('chat-1')).rejects.toBeInstanceOf(StoreTimeoutError);
    await expect(sessions.send('chat-1', { type: 'abort' }, 'abort-1')).rejects.toThrow(/within 200 ms \(timeoutMs\)/);
  });

  it('refuses a timeoutMs that is not a positive number of ms', () => {
    expect(() => sessionClient(unansweringClient().client, { timeoutMs: 0 })).toThrow(RangeError);
  });
});

/** A DBOS client with one turn in progress for every session, which answers at once. */
function answeringClient(): DBOSClient {
  const status = { status: 'PENDING' };
  return {
    listWorkflows: async () => [{ workflowID: 'loopchart:chat-1:msg-0' }],
    send: async () => undefined,
    getEvent: async () => false,
    retrieveWorkflow: () => ({ getStatus: async () => status }),
  } as unknown as DBOSClient;
}

const control = (publish: ControlChannel['publish']): ControlChannel => ({ publish, subscribe: async () => () => undefined, close: async () => undefined });

describe("sessionClient's live publish on a control channel that fails", () => {
  it('reports a refused publish to onControlError and still resolves: the input is in the mailbox', async () => {
    const heard: unknown[][] = [];
    const refused = new Error('connection terminated');
    const sessions = sessionClient(answeringClient(), { control: control(async () => Promise.reject(refused)), onControlError: (...args) => heard.push(args) });
    await expect(sessions.send('chat-1', { type: 'abort' }, 'abort-1')).resolves.toBe('loopchart:chat-1:msg-0');
    expect(heard).toEqual([[refused, 'chat-1', 'abort-1']]);
  });

  it('does not wait past a tenth of timeoutMs for a publish that never answers', async () => {
    const heard: unknown[] = [];
    const sessions = sessionClient(answeringClient(), { timeoutMs: 2_000, control: control(() => new Promise(() => undefined)), onControlError: (error) => heard.push(error) });
    await expect(sessions.send('chat-1', { type: 'steer', message: 'stop that' }, 'steer-1')).resolves.toBe('loopchart:chat-1:msg-0');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeInstanceOf(StoreTimeoutError);
    expect((heard[0] as Error).message).toBe('the control channel did not answer within 200 ms');
  });

  it('without onControlError, warns once per client, naming the option', async () => {
    const warnings: Array<{ code?: string; message: string }> = [];
    const listen = (warning: Error & { code?: string }) => warnings.push({ code: warning.code, message: warning.message });
    process.on('warning', listen);
    try {
      const sessions = sessionClient(answeringClient(), { control: control(async () => Promise.reject(new Error('connection terminated'))) });
      await sessions.send('chat-1', { type: 'abort' }, 'abort-1');
      await sessions.send('chat-1', { type: 'abort' }, 'abort-2');
      await expect.poll(() => warnings.filter((warning) => warning.code === CONTROL_NOT_PUBLISHED_WARNING).length, { timeout: 30_000 }).toBe(1);
      expect(warnings.find((warning) => warning.code === CONTROL_NOT_PUBLISHED_WARNING)?.message).toMatch(/session chat-1 was not published live \(connection terminated\).*onControlError/);
    } finally {
      process.off('warning', listen);
    }
  });
});
