/**
 * `pgControlChannel` delivers only well-formed inputs, whoever else notifies on its channel, and
 * opens no connection once closed. (A connection that breaks or stalls:
 * test/persistence/pg-listen.test.ts.)
 */
import { describe, expect, it, vi } from 'vitest';
import { INVALID_CONTROL_MESSAGE_WARNING, pgControlChannel } from '../../src/dbos/pg-control-channel.js';
import type { SessionInput } from '../../src/scale/session-request.js';
import { usePostgresForTests } from '../support/postgres-pools.js';

const postgres = usePostgresForTests();
const newPool = postgres.newPool;

describe.skipIf(postgres.binary === undefined)('pgControlChannel', () => {
  it('drops a payload that is not a well-formed session request, says so, and goes on delivering the next one', async () => {
    const pool = newPool();
    const dropped: string[] = [];
    const channel = pgControlChannel(pool, { onInvalidMessage: (error, payload) => dropped.push(payload) && expect(error.message).toMatch(/^pgControlChannel dropped a notification: /) });
    const received: Array<{ input: SessionInput; requestId: string }> = [];
    let heard: () => void = () => undefined;
    const heardValid = new Promise<void>((resolve) => (heard = resolve));
    const unsubscribe = await channel.subscribe('chat-1', (input, requestId) => {
      received.push({ input, requestId });
      if (requestId === 'abort-1') heard();
    });
    try {
      const notify = (payload: string) => pool.query(`SELECT pg_notify('loopchart_session_control', $1)`, [payload]);
      const malformed = [
        'null',
        '42',
        '"chat-1"',
        'not json',
        JSON.stringify({ sessionId: 'chat-1', input: { type: 'explode' }, requestId: 'bad-type' }),
        JSON.stringify({ sessionId: 'chat-1', input: { type: 'approve' }, requestId: 'no-tool-call' }),
        JSON.stringify({ sessionId: 'chat-1', input: { type: 'abort' } }),
        JSON.stringify({ sessionId: 'chat-1', input: { type: 'abort' }, requestId: 42 }),
        JSON.stringify({ sessionId: 'chat-1', input: null, requestId: 'no-input' }),
      ];
      for (const payload of malformed) await notify(payload);
      await channel.publish('chat-1', { type: 'abort' }, 'abort-1');
      // Notifications arrive in the order they were sent: once the valid one is here, every malformed one was handled.
      await heardValid;
      expect(received).toEqual([{ input: { type: 'abort' }, requestId: 'abort-1' }]);
      expect(dropped).toEqual(malformed);
    } finally {
      unsubscribe();
      await channel.close();
    }
  });

  it('a subscriber that throws neither ends the process nor keeps the input from the others; without onInvalidMessage one warning says so', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const pool = newPool();
    const channel = pgControlChannel(pool);
    let heard: () => void = () => undefined;
    const heardByOther = new Promise<void>((resolve) => (heard = resolve));
    const unsubscribeThrowing = await channel.subscribe('chat-4', () => {
      throw new Error('subscriber broke');
    });
    const unsubscribeOther = await channel.subscribe('chat-4', () => heard());
    try {
      await pool.query(`SELECT pg_notify('loopchart_session_control', 'null')`);
      await channel.publish('chat-4', { type: 'abort' }, 'abort-4');
      await heardByOther;
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toContain('pgControlChannel dropped a notification');
      expect(warn.mock.calls[0]![1]).toMatchObject({ code: INVALID_CONTROL_MESSAGE_WARNING });
    } finally {
      unsubscribeThrowing();
      unsubscribeOther();
      await channel.close();
      warn.mockRestore();
    }
  });

  it('refuses subscribe() once closed, and leaves no connection checked out', async () => {
    const pool = newPool();
    const channel = pgControlChannel(pool);
    const unsubscribe = await channel.subscribe('chat-2', () => undefined);
    unsubscribe();
    await channel.close();
    await expect(channel.subscribe('chat-2', () => undefined)).rejects.toThrow('pgControlChannel: cannot subscribe, the channel is closed');
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('refuses a subscribe() whose listening close() stopped before it resolved', async () => {
    const pool = newPool();
    const channel = pgControlChannel(pool);
    const refused = expect(channel.subscribe('chat-3', () => undefined)).rejects.toThrow('pgControlChannel: cannot subscribe, the channel is closed');
    await channel.close();
    await refused;
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });
});
