import type { Pool } from 'pg';

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

/**
 * Listens on a Postgres `NOTIFY` channel (`pg_notify(channel, payload)`): checks a connection out
 * of `pool` for as long as it listens, and resolves once `LISTEN` has run, so that what is
 * notified after that arrives. A connection that breaks (the server restarted, a proxy cut it) is
 * said once to `onBroken` instead of ending the process; listening again is the caller's choice.
 * The one place loopchart listens: `watchSession` and `pgControlChannel` both use it.
 *
 * @example
 * ```ts
 * const listening = await listenOn(pool, 'loopchart_session_changed', { onNotification: (payload) => console.log(payload), onBroken: () => undefined });
 * await listening.stop();
 * ```
 * @throws the connection's or the `LISTEN`'s error when it cannot listen (nothing is left checked out).
 */
export async function listenOn(pool: Pool, channel: string, handlers: PgListenHandlers): Promise<PgListening> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let released = false;
  let stopped = false;
  /** `LISTEN` has run: a break before that is the rejection of `listenOn` itself. */
  let listening = false;
  const release = () => {
    if (released) return;
    released = true;
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
    await client.query(`LISTEN ${channel}`);
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
      if (!broken && !released) await client.query(`UNLISTEN ${channel}`).catch(() => undefined);
      release();
    },
  };
}
