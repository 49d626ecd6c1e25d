/**
 * `sessionClient` against a system database that stops answering (a paused Postgres, a dropped
 * route): `send` and `activeTurn` reject once `timeoutMs` has passed instead of holding the web
 * request for ever. The DBOS client is a stand-in whose calls never settle; the calls' routing is
 * tested against real workers in test/scale/session-routing.test.ts.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { sessionClient } from '../../src/dbos/session-client.js';
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
