import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { batchFrame } from '../src/inspect/inspection-frame.js';
import { INSPECTION_EVENTS_DROPPED_WARNING, WebSocketBatchAdapter } from '../src/inspect/websocket-batch-adapter.js';

/** A WebSocket server on 127.0.0.1 that records every frame it gets (a binary one marked, since a relay refuses those). */
async function frameServer(port = 0) {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise((resolve) => server.once('listening', resolve));
  const frames: string[] = [];
  const connections: WebSocket[] = [];
  const waiters: Array<() => void> = [];
  server.on('connection', (socket) => {
    connections.push(socket);
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      frames.push(isBinary ? `binary frame: ${data.toString()}` : data.toString());
      for (const wake of waiters.splice(0)) wake();
    });
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const close = () => new Promise<void>((resolve) => {
    for (const client of server.clients) client.terminate();
    server.close(() => resolve());
  });
  return { port: (server.address() as AddressInfo).port, frames, connections, until, close };
}

const texts = (count: number, from = 0) => Array.from({ length: count }, (_, index) => JSON.stringify({ type: '@xstate.event', n: from + index }));

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('WebSocketBatchAdapter', () => {
  it('writes each batch as one frame to a server whose URL says it reads batch frames', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?token=t&frames=batch` });
    cleanup.push(() => adapter.stop());
    adapter.sendBatch(texts(1, 100));
    adapter.start();
    // The event held until the socket opened arrives first: from then on the socket is open.
    await server.until(() => server.frames.length === 1);
    adapter.sendBatch(texts(3));
    adapter.sendBatch(texts(1, 3));
    await server.until(() => server.frames.length === 3);
    expect(server.frames).toEqual([texts(1, 100)[0], batchFrame(texts(3)), texts(1, 3)[0]]);
  });

  it('lets a batch refer back only to a relay that resolves references, and only while its socket is open, and says so in its frame', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const referring = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?token=t&frames=references` });
    const batching = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?token=t&frames=batch` });
    cleanup.push(() => referring.stop(), () => batching.stop());
    expect(referring.readsBackReferences).toBe(false);
    referring.start();
    batching.start();
    referring.sendBatch(texts(1));
    batching.sendBatch(texts(1));
    await server.until(() => server.frames.length === 2);
    expect(referring.readsBackReferences).toBe(true);
    expect(batching.readsBackReferences).toBe(false);
    referring.sendBatch(texts(2, 5), true);
    await server.until(() => server.frames.length === 3);
    expect(server.frames[2]).toBe(batchFrame(texts(2, 5), true));
    referring.stop();
    expect(referring.readsBackReferences).toBe(false);
  });

  it('writes one event per frame to any other server, as @statelyai/inspect does', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}` });
    cleanup.push(() => adapter.stop());
    adapter.start();
    adapter.sendBatch(texts(3));
    await server.until(() => server.frames.length === 3);
    expect(server.frames).toEqual(texts(3));
  });

  it('holds the newest events while it is not connected and sends them once it is', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?frames=batch`, maxDeferredEvents: 4, onDropped: () => undefined });
    cleanup.push(() => adapter.stop());
    adapter.sendBatch(texts(3));
    adapter.sendBatch(texts(3, 3));
    adapter.start();
    await server.until(() => server.frames.length === 1);
    expect(server.frames).toEqual([batchFrame(texts(4, 2))]);
  });

  it('tells onDropped, once it connects, how many events it dropped while not connected, and why', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const onDropped = vi.fn();
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?frames=batch`, maxDeferredEvents: 4, onDropped });
    cleanup.push(() => adapter.stop());
    adapter.sendBatch(texts(3));
    adapter.sendBatch(texts(3, 3));
    adapter.sendBatch(texts(1, 6));
    adapter.start();
    await server.until(() => server.frames.length === 1);
    expect(onDropped.mock.calls).toEqual([[3, 'more than maxDeferredEvents (4) waited while it was not connected; the oldest were dropped']]);
  });

  it('tells onDropped on stop() of the events it dropped without ever connecting', () => {
    const onDropped = vi.fn();
    const adapter = new WebSocketBatchAdapter({ url: 'ws://127.0.0.1:1/?frames=batch', maxDeferredEvents: 2, onDropped });
    adapter.sendBatch(texts(5));
    expect(onDropped).not.toHaveBeenCalled();
    adapter.stop();
    expect(onDropped.mock.calls).toEqual([[3, 'more than maxDeferredEvents (2) waited while it was not connected; the oldest were dropped']]);
    adapter.stop();
    expect(onDropped).toHaveBeenCalledTimes(1);
  });

  it('without onDropped, warns once (LOOPCHART_INSPECTION_EVENTS_DROPPED) and says how to hear of each; a throwing onDropped stops nothing', async () => {
    const warnings: Error[] = [];
    const collect = (warning: Error) => warnings.push(warning);
    process.on('warning', collect);
    cleanup.push(() => process.off('warning', collect));
    const adapter = new WebSocketBatchAdapter({ url: 'ws://127.0.0.1:1/?frames=batch', maxDeferredEvents: 2 });
    adapter.sendBatch(texts(5));
    adapter.stop();
    adapter.sendBatch(texts(5));
    adapter.stop();
    process.emitWarning('marker', { code: 'TEST_MARKER' });
    await expect.poll(() => warnings.some((warning) => (warning as Error & { code?: string }).code === 'TEST_MARKER'), { timeout: 30_000 }).toBe(true);
    const ours = warnings.filter((warning) => (warning as Error & { code?: string }).code === INSPECTION_EVENTS_DROPPED_WARNING);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ name: 'LoopchartWarning' });
    expect(ours[0]!.message).toBe(
      'createWebSocketInspector: 3 inspection events were dropped (more than maxDeferredEvents (2) waited while it was not connected; the oldest were dropped): the Stately inspector shows the run without them. Later drops are not warned of: pass onDropped to hear of each.',
    );

    const throwing = new WebSocketBatchAdapter({ url: 'ws://127.0.0.1:1/?frames=batch', maxDeferredEvents: 2, onDropped: () => { throw new Error('app bug'); } });
    throwing.sendBatch(texts(5));
    expect(() => throwing.stop()).not.toThrow();
  });

  it('refuses a limit it could not honour (NaN, negative, a fraction of an event), naming it, rather than holding events without bound', () => {
    const url = 'ws://127.0.0.1:1/?frames=batch';
    for (const maxDeferredEvents of [Number.NaN, -1, 2.5, '10' as unknown as number]) {
      expect(() => new WebSocketBatchAdapter({ url, maxDeferredEvents })).toThrow(new RangeError(`createWebSocketInspector: maxDeferredEvents must be a whole number of events, 0 or more, not ${String(maxDeferredEvents)}`));
    }
    for (const maxBufferedBytes of [Number.NaN, 0, -5, '1' as unknown as number]) {
      expect(() => new WebSocketBatchAdapter({ url, maxBufferedBytes })).toThrow(new RangeError(`createWebSocketInspector: maxBufferedBytes must be a positive number of bytes, not ${String(maxBufferedBytes)}`));
    }
    expect(() => new WebSocketBatchAdapter({ url, reconnectDelayMs: Number.NaN })).toThrow(/reconnectDelayMs must be a number of ms, 0 to 2147483647, not NaN/);
  });

  it('refuses a reconnectDelayMs past the longest a timer can wait (2^31-1 ms), which would fire at once and retry a server that is down without pause', () => {
    const url = 'ws://127.0.0.1:1/?frames=batch';
    expect(() => new WebSocketBatchAdapter({ url, reconnectDelayMs: 2 ** 31 })).toThrow(/reconnectDelayMs must be a number of ms, 0 to 2147483647, not 2147483648/);
    expect(() => new WebSocketBatchAdapter({ url, reconnectDelayMs: 2 ** 31 - 1 })).not.toThrow();
    // No limit is a choice it can honour.
    expect(() => new WebSocketBatchAdapter({ url, maxDeferredEvents: Infinity, maxBufferedBytes: Infinity, reconnectDelayMs: 0 })).not.toThrow();
  });

  it('connects again after the connection is lost, and stops trying on stop()', async () => {
    const server = await frameServer();
    cleanup.push(server.close);
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${server.port}/?frames=batch`, reconnectDelayMs: 10 });
    cleanup.push(() => adapter.stop());
    adapter.start();
    await server.until(() => server.connections.length === 1);
    server.connections[0]!.terminate();
    await server.until(() => server.connections.length === 2);
    adapter.sendBatch(texts(2));
    await server.until(() => server.frames.length === 1);
    expect(server.frames).toEqual([batchFrame(texts(2))]);

    const closed = new Promise((resolve) => server.connections[1]!.once('close', resolve));
    adapter.stop();
    await closed;
    // Held while stopped (a reconnect stop() failed to cancel would have delivered them), sent on the next start().
    adapter.sendBatch(texts(2, 10));
    adapter.start();
    await server.until(() => server.frames.length === 2);
    expect(server.frames[1]).toBe(batchFrame(texts(2, 10)));
    expect(server.connections).toHaveLength(3);
  });

  it('drops a connection to a server that reads nothing once more than maxBufferedBytes wait unsent, and connects again, rather than holding every event', async () => {
    // A bare TCP server that answers the WebSocket handshake, then never reads (a hung or suspended receiver).
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.once('data', (chunk: Buffer) => {
        const key = /sec-websocket-key: (.+)\r\n/i.exec(chunk.toString())![1]!;
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        socket.pause();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((closed) => server.close(closed)));
    server.on('connection', (socket) => cleanup.push(() => socket.destroy()));
    const onDropped = vi.fn();
    const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/?frames=references`, maxBufferedBytes: 256 * 1024, reconnectDelayMs: 10, onDropped });
    cleanup.push(() => adapter.stop());
    adapter.start();
    await expect.poll(() => adapter.readsBackReferences, { timeout: 30_000 }).toBe(true);
    // Far more than the kernel's socket buffers hold: what the server does not read piles up in the adapter.
    const big = [JSON.stringify({ type: '@xstate.event', pad: 'x'.repeat(64 * 1024) })];
    await expect
      .poll(() => {
        for (let frame = 0; frame < 50; frame++) adapter.sendBatch(big);
        // The server, paused, never sees the first connection end: a second one is the sign it was dropped.
        return connections;
      }, { timeout: 30_000, interval: 20 })
      .toBeGreaterThanOrEqual(2);
    // The events it had not sent went with that connection: the app hears how many, and why.
    await expect.poll(() => onDropped.mock.calls.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const [count, reason] = onDropped.mock.calls[0] as [number, string];
    expect(count).toBeGreaterThan(0);
    expect(reason).toMatch(/^the server had not read \d+\.\d MiB of them \(more than maxBufferedBytes, 0\.3 MiB\): the connection was dropped with them and is made again$/);
  });

  it('sends frames to a loopback address with an all-zero masking key: no proxy stands between it and a relay on this machine', async () => {
    // A bare TCP server that answers the WebSocket handshake and reads the first frame's header as it is on the wire.
    const header = new Promise<Buffer>((resolve) => {
      const server = createServer((socket) => {
        let received = Buffer.alloc(0);
        let upgraded = false;
        socket.on('data', (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          if (!upgraded) {
            const end = received.indexOf('\r\n\r\n');
            if (end < 0) return;
            const key = /sec-websocket-key: (.+)\r\n/i.exec(received.subarray(0, end).toString())![1]!;
            const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
            socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
            received = received.subarray(end + 4);
            upgraded = true;
          }
          if (received.length >= 6) resolve(received.subarray(0, 6));
        });
      });
      server.listen(0, '127.0.0.1', () => {
        const adapter = new WebSocketBatchAdapter({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` });
        cleanup.push(() => adapter.stop(), () => new Promise((closed) => server.close(closed)));
        adapter.sendBatch(texts(1));
        adapter.start();
      });
      server.on('connection', (socket) => cleanup.push(() => socket.destroy()));
    });
    const bytes = await header;
    expect(bytes[1]! & 0x80).toBe(0x80); // a client frame is marked masked, as RFC 6455 requires
    expect([...bytes.subarray(2, 6)]).toEqual([0, 0, 0, 0]); // with a key that leaves the payload as it is
  });
});
