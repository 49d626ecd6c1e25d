import type { Pool } from 'pg';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { listenOn, type PgListening } from '../persistence/pg-listen.js';
import { assertSessionRequest, type SessionInput } from '../scale/session-request.js';
import { tolerateIdleConnectionErrors } from '../postgres/pg-connection-errors.js';
import { errorMessage } from '../core/error-message.js';
import { reportToAppOrWarnOnce } from '../core/warn-once.js';

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
   * (an abort pressed while the run works) is delivered. A notification that is not a well-formed
   * session request (`assertSessionRequest`) is dropped. Rejects once the channel is closed
   * (`advanceSession` then runs without live control): nothing would stop a new `LISTEN`.
   */
  subscribe(sessionId: string, deliver: (input: SessionInput, requestId: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

export interface PgControlChannelOptions {
  /**
   * How often the listening connection is checked, and how long it has to answer: one that stops
   * answering without a reset is dropped and listened on again, as a cut one is.
   * @default 10000
   */
  heartbeatMs?: number;
  /**
   * Told of a notification on the channel that is not a well-formed session request (anyone who
   * can connect may `NOTIFY` on it; a node of another version may send another shape), and of a
   * subscriber that threw. Either is dropped, never thrown into `pg`'s notification handler.
   * Without it, the first is a process warning (`LOOPCHART_INVALID_CONTROL_MESSAGE`).
   */
  onInvalidMessage?: (error: Error, payload: string) => void;
}

/**
 * `pgControlChannel`'s options, checked whole when the channel is made: a misspelt one is refused,
 * not ignored, and so is a `heartbeatMs` a timer cannot keep (else it would be refused only by the
 * first `subscribe`, and `advanceSession` runs on without live control when that rejects).
 */
const controlChannelOptionsSchema = z.strictObject({
  heartbeatMs: timerMsSchema.optional(),
  onInvalidMessage: functionOption<(error: Error, payload: string) => void>().optional(),
});

/** The process warning's code for a control notification that was dropped, when no `onInvalidMessage` is given. */
export const INVALID_CONTROL_MESSAGE_WARNING = 'LOOPCHART_INVALID_CONTROL_MESSAGE';

const closedError = () => new Error('pgControlChannel: cannot subscribe, the channel is closed');

export function pgControlChannel(pool: Pool, options: PgControlChannelOptions = {}): ControlChannel {
  parseOptions('pgControlChannel', controlChannelOptionsSchema, options);
  tolerateIdleConnectionErrors(pool);
  const listeners = new Map<string, Set<(input: SessionInput, requestId: string) => void>>();
  let listening: Promise<PgListening> | undefined;
  let closed = false;
  let retryMs = 100;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** While anyone subscribes, listen again after a backoff (inputs sent meanwhile arrive by their durable copy). */
  const listenAgainLater = () => {
    if (closed || listeners.size === 0 || retryTimer !== undefined) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      listen().catch(() => undefined);
    }, retryMs);
    retryTimer.unref?.();
    retryMs = Math.min(retryMs * 2, 2_000);
  };
  const report = reportToAppOrWarnOnce(options.onInvalidMessage, INVALID_CONTROL_MESSAGE_WARNING, (error: Error) => `${error.message}. Later ones are not warned of; pass onInvalidMessage to hear of each.`);
  const invalid = (error: unknown, payload: string) => report(new Error(`pgControlChannel dropped a notification: ${errorMessage(error)}`, { cause: error }), payload);
  // Whatever happens here stays here: a throw would reach pg's notification handler and end the process.
  const deliver = (payload: string) => {
    try {
      let message: ControlMessage;
      try {
        message = JSON.parse(payload) as ControlMessage;
        assertSessionRequest(message);
      } catch (error) {
        invalid(error, payload); // Not a message this channel sends (anyone may NOTIFY on it).
        return;
      }
      for (const listener of listeners.get(message.sessionId) ?? []) {
        try {
          listener(message.input, message.requestId);
        } catch (error) {
          invalid(error, payload);
        }
      }
    } catch {
      // Nothing above should throw (an app's onInvalidMessage that does is swallowed by the report); should anything, pg's handler must not get it.
    }
  };
  const listen = () =>
    (listening ??= listenOn(pool, CHANNEL, {
      onNotification: deliver,
      onBroken: () => {
        listening = undefined;
        listenAgainLater();
      },
    }, options).then(
      (handle) => {
        retryMs = 100;
        return handle;
      },
      (error: unknown) => {
        listening = undefined;
        listenAgainLater();
        throw error;
      },
    ));
  return {
    async publish(sessionId, input, requestId) {
      const payload = JSON.stringify({ sessionId, input, requestId } satisfies ControlMessage);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return; // Too large to signal live: the durable copy carries it.
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
    },
    async subscribe(sessionId, deliverInput) {
      if (closed) throw closedError();
      const set = listeners.get(sessionId) ?? new Set();
      set.add(deliverInput);
      listeners.set(sessionId, set);
      const unsubscribe = () => {
        set.delete(deliverInput);
        if (set.size === 0) listeners.delete(sessionId);
      };
      try {
        await listen();
        if (closed) throw closedError(); // close() stopped the listening this waited for.
      } catch (error) {
        unsubscribe();
        throw error;
      }
      return unsubscribe;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const handle = await listening?.catch(() => undefined);
      listening = undefined;
      await handle?.stop();
    },
  };
}
