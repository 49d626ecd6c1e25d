import type { Pool, PoolClient } from 'pg';
import type { SessionInput } from '../scale/advance-session.js';

const CHANNEL = 'loopchart_session_control';
/** Postgres refuses NOTIFY payloads of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_900;

interface ControlMessage {
  sessionId: string;
  input: SessionInput;
  requestId: string;
}

/**
 * Live control of sessions across processes over Postgres `LISTEN/NOTIFY`:
 * a web node publishes an input for a session, and the worker that is
 * advancing that session right now applies it at once (an abort stops the run
 * mid-step instead of at its end). Delivery is at most once and only to a
 * worker listening at that moment: the durable copy of the input (the
 * workflow's mailbox) is what guarantees it is applied; the request id keeps
 * it from being applied twice.
 *
 * @example
 * ```ts
 * const control = pgControlChannel(pool);
 * await control.publish('chat-42', { type: 'abort' }, 'abort-7');
 * ```
 */
export interface ControlChannel {
  publish(sessionId: string, input: SessionInput, requestId: string): Promise<void>;
  /**
   * For `advanceSession`'s `subscribeControl`: inputs published for `sessionId` until the returned
   * function is called. Resolves once this process listens, so an input published after that
   * (an abort pressed while the run works) is delivered.
   */
  subscribe(sessionId: string, deliver: (input: SessionInput, requestId: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

export function pgControlChannel(pool: Pool): ControlChannel {
  const listeners = new Map<string, Set<(input: SessionInput, requestId: string) => void>>();
  let listening: Promise<PoolClient> | undefined;
  const listen = () =>
    (listening ??= pool.connect().then(async (client) => {
      client.on('notification', (notification) => {
        if (notification.channel !== CHANNEL || !notification.payload) return;
        let message: ControlMessage;
        try {
          message = JSON.parse(notification.payload) as ControlMessage;
        } catch {
          return;
        }
        for (const deliver of listeners.get(message.sessionId) ?? []) deliver(message.input, message.requestId);
      });
      // A dropped connection loses live delivery only; the next subscription listens again.
      client.on('error', () => {
        listening = undefined;
      });
      await client.query(`LISTEN ${CHANNEL}`);
      return client;
    }));
  return {
    async publish(sessionId, input, requestId) {
      const payload = JSON.stringify({ sessionId, input, requestId } satisfies ControlMessage);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return; // Too large to signal live: the durable copy carries it.
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
    },
    async subscribe(sessionId, deliver) {
      const set = listeners.get(sessionId) ?? new Set();
      set.add(deliver);
      listeners.set(sessionId, set);
      await listen();
      return () => {
        set.delete(deliver);
        if (set.size === 0) listeners.delete(sessionId);
      };
    },
    async close() {
      const client = await listening?.catch(() => undefined);
      listening = undefined;
      if (client) {
        await client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
}
