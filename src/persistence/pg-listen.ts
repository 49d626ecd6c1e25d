import type { Pool } from 'pg';
import { answerWithin } from '../core/answer-within.js';
import { MAX_TIMER_MS } from '../core/max-timer-ms.js';

/** A `LISTEN` on a connection of its own; see {@link listenOn}. */
export interface PgListening {
  /** Stops listening (`UNLISTEN`) and gives the connection back; a broken one is dropped. Does nothing the second time. */
  stop(): Promise<void>;
}

export interface PgListenHandlers {
  /** A notification on the channel, with its payload (`''` when it has none). Must not throw. */
  onNotification(payload: string): void;
  /**
   * The connection broke or ended while listening: nothing more arrives, and the connection has
   * been dropped. Called at most once, never after `stop()`. Must not throw.
   */
  onBroken(error: Error): void;
}

export interface PgListenOptions {
  /**
   * How often the listening connection is asked a `SELECT 1`, and how long it has to answer it
   * (and `UNLISTEN` at `stop()`): a connection that stalls without a reset or an error would
   * otherwise listen for ever and hear nothing. One not answered in time counts as broken.
   * @default 10000
   */
  heartbeatMs?: number;
}

/**
 * The heartbeat `listenOn` keeps for these options: `heartbeatMs`, 10000 by default.
 *
 * @example
 * listenHeartbeatMs({}); // 10000
 * @throws RangeError, naming `heartbeatMs`, for one that is not a positive number of ms a timer can wait.
 */
export function listenHeartbeatMs(options: PgListenOptions, owner = 'listenOn'): number {
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  // More than a timer can wait would fire at once: a heartbeat every millisecond, and every answer too late.
  if (!Number.isFinite(heartbeatMs) || heartbeatMs <= 0 || heartbeatMs > MAX_TIMER_MS) throw new RangeError(`${owner}: heartbeatMs must be a positive number of ms, at most ${MAX_TIMER_MS}, not ${heartbeatMs}`);
  return heartbeatMs;
}

/**
 * Listens on a Postgres `NOTIFY` channel (`pg_notify(channel, payload)`): checks a connection out
 * of `pool` for as long as it listens, and resolves once `LISTEN` has run, so that what is
 * notified after that arrives. A connection that breaks (the server restarted, a proxy cut it) or
 * stops answering its heartbeat is said once to `onBroken` instead of ending the process or
 * hearing nothing for ever; listening again is the caller's choice.
 * The one place loopchart listens: `watchSession` and `pgControlChannel` both use it.
 *
 * @example
 * ```ts
 * const listening = await listenOn(pool, 'loopchart_session_changed', { onNotification: (payload) => console.log(payload), onBroken: () => undefined });
 * await listening.stop();
 * ```
 * @throws the connection's or the `LISTEN`'s error when it cannot listen (nothing is left checked out).
 */
export async function listenOn(pool: Pool, channel: string, handlers: PgListenHandlers, options: PgListenOptions = {}): Promise<PgListening> {
  const heartbeatMs = listenHeartbeatMs(options);
  const connecting = pool.connect();
  const client = await answerWithin(connecting, heartbeatMs, () => new Error(`no connection to listen on within ${heartbeatMs} ms`)).catch((error: unknown) => {
    // One that comes after all is not kept from the pool.
    connecting.then((late) => late.release(true), () => undefined);
    throw error;
  });
  let broken: Error | undefined;
  let released = false;
  let stopped = false;
  /** `LISTEN` has run: a break before that is the rejection of `listenOn` itself. */
  let listening = false;
  /** `query` on the listening connection, given up on (the connection then counts as broken) when not answered within a heartbeat. */
  const answered = (query: string) => answerWithin(client.query(query), heartbeatMs, () => new Error(`the LISTEN connection did not answer ${query} within ${heartbeatMs} ms`));
  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating || released || !listening) return;
    beating = true;
    answered('SELECT 1').then(
      () => void (beating = false),
      (error: unknown) => onBreak(error instanceof Error ? error : new Error(String(error))),
    );
  }, heartbeatMs);
  heartbeat.unref?.();
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    client.off('notification', onNotification);
    client.release(broken ?? undefined);
  };
  const onNotification = (message: { channel: string; payload?: string }) => {
    if (message.channel === channel && !stopped) handlers.onNotification(message.payload ?? '');
  };
  // Left on after release: a dropped connection may still report its end, and an unheard 'error' would end the process.
  const onBreak = (error: Error) => {
    if (broken || released) return;
    broken = error;
    release();
    if (listening && !stopped) handlers.onBroken(error);
  };
  client.on('notification', onNotification);
  client.on('error', onBreak);
  client.on('end', () => onBreak(new Error('the LISTEN connection ended')));
  try {
    await answered(`LISTEN ${channel}`);
  } catch (error) {
    stopped = true;
    broken ??= error instanceof Error ? error : new Error(String(error));
    release();
    throw error;
  }
  listening = true;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      // A connection that does not answer is dropped rather than given back to the pool.
      if (!broken && !released) await answered(`UNLISTEN ${channel}`).catch((error: unknown) => void (broken ??= error instanceof Error ? error : new Error(String(error))));
      release();
    },
  };
}
