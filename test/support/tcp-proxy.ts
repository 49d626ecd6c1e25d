/**
 * A TCP proxy on 127.0.0.1 in front of one server (Postgres, Redis), for tests that cut the
 * network under a client: `cut()` destroys every connection on both sides (with a reset, as a
 * crashed router or load balancer does) and, for a while, resets (`reset`) or silently holds
 * (`blackhole`) each new one; `stall()` stops forwarding in both directions without closing
 * anything, as a congested link does. Pure `node:net`.
 *
 * @example
 * const proxy = await startTcpProxy({ port: postgres.port });
 * const url = `postgres://postgres@127.0.0.1:${proxy.port}/soak`; // clients connect here
 * await proxy.cut(2_000, 'blackhole'); // resolves when the cut is over
 * await proxy.close();
 */
import net from 'node:net';

export type CutMode = 'reset' | 'blackhole';

export interface TcpProxy {
  /** The port clients connect to. */
  readonly port: number;
  /** Connections forwarded right now. */
  readonly openConnections: number;
  /** Connections accepted since the start (forwarded, reset or held). */
  readonly acceptedConnections: number;
  /**
   * Destroys every open connection (both sides), then for `durationMs` resets each new connection
   * at once (`reset`) or accepts it and sends nothing either way until the cut ends, when it is
   * destroyed (`blackhole`). Resolves when the cut is over.
   */
  cut(durationMs: number, mode: CutMode): Promise<void>;
  /** Forwards nothing in either direction for `durationMs` (new connections wait), then goes on. Resolves when it does. */
  stall(durationMs: number): Promise<void>;
  /** Ends a cut or stall in progress now (its promise resolves). */
  heal(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

/** Listens on a free port of 127.0.0.1 and forwards to `host:port` (default host 127.0.0.1). */
export async function startTcpProxy(target: { port: number; host?: string }): Promise<TcpProxy> {
  if (!Number.isInteger(target.port) || target.port <= 0 || target.port > 65_535) throw new RangeError(`a TCP proxy needs a target port in 1-65535, not ${target.port}`);
  const host = target.host ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  /** Connections held by a blackhole, destroyed when it ends. */
  const held = new Set<net.Socket>();
  /** Connections accepted during a stall, connected upstream when it ends. */
  const waiting: net.Socket[] = [];
  let cutMode: CutMode | undefined;
  let stalled = false;
  let accepted = 0;
  let endWindow: (() => void) | undefined;
  let closed = false;

  const destroyPair = (pair: Pair) => {
    if (!pairs.delete(pair)) return;
    resetSocket(pair.client);
    if (pair.upstream) resetSocket(pair.upstream);
  };

  /** Copies what `from` reads to `to`, honouring backpressure; a stall pauses the reading side. */
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (!stalled) from.resume();
        });
      }
    });
  };

  const connectUpstream = (client: net.Socket) => {
    if (client.destroyed) return;
    const upstream = net.connect({ port: target.port, host });
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    upstream.setNoDelay(true);
    forward(client, upstream);
    forward(upstream, client);
    // An error on either side resets both; a side that closes cleanly lets the other finish writing, then close.
    const fail = () => destroyPair(pair);
    const closeOther = (other: net.Socket) => () => {
      if (!pairs.delete(pair) || other.destroyed) return;
      other.end();
      setTimeout(() => other.destroy(), 1_000).unref();
    };
    client.on('error', fail).on('close', closeOther(upstream));
    upstream.on('error', fail).on('close', closeOther(client));
    if (stalled) {
      client.pause();
      upstream.pause();
    }
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    client.setNoDelay(true);
    client.on('error', () => undefined);
    if (closed || cutMode === 'reset') {
      resetSocket(client);
      return;
    }
    if (cutMode === 'blackhole') {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    if (stalled) {
      waiting.push(client);
      return;
    }
    connectUpstream(client);
    client.resume();
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the TCP proxy has no port');

  /** Runs one cut or stall window: `begin` now, `finish` at its end or at heal(). */
  const window = (durationMs: number, begin: () => void, finish: () => void): Promise<void> => {
    if (!Number.isFinite(durationMs) || durationMs < 0) return Promise.reject(new RangeError(`a cut or stall lasts 0 ms or more, not ${durationMs}`));
    if (endWindow) return Promise.reject(new Error('a cut or stall is already in progress on this proxy'));
    begin();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => endWindow?.(), durationMs);
      endWindow = () => {
        clearTimeout(timer);
        endWindow = undefined;
        finish();
        resolve();
      };
    });
  };

  return {
    port: address.port,
    get openConnections() {
      return pairs.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    cut(durationMs, mode) {
      if (mode !== 'reset' && mode !== 'blackhole') return Promise.reject(new TypeError(`a cut's mode is "reset" or "blackhole", not "${String(mode)}"`));
      return window(
        durationMs,
        () => {
          cutMode = mode;
          for (const pair of [...pairs]) destroyPair(pair);
        },
        () => {
          cutMode = undefined;
          for (const socket of [...held]) resetSocket(socket);
          held.clear();
        },
      );
    },
    stall(durationMs) {
      return window(
        durationMs,
        () => {
          stalled = true;
          for (const pair of pairs) {
            pair.client.pause();
            pair.upstream?.pause();
          }
        },
        () => {
          stalled = false;
          for (const pair of pairs) {
            pair.client.resume();
            pair.upstream?.resume();
          }
          for (const client of waiting.splice(0)) {
            connectUpstream(client);
            client.resume();
          }
        },
      );
    },
    heal() {
      endWindow?.();
    },
    async close() {
      closed = true;
      endWindow?.();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const pair of [...pairs]) destroyPair(pair);
      for (const socket of [...held, ...waiting]) resetSocket(socket);
      await stopped;
    },
  };
}

/** Closes with a TCP reset where the socket is connected (the peer sees ECONNRESET), otherwise destroys it. */
function resetSocket(socket: net.Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
