import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** A server that echoes what it reads, and everything it read. */
let echo: net.Server;
let echoed = '';
const echoSockets = new Set<net.Socket>();
let proxy: TcpProxy;
const clients = new Set<net.Socket>();

beforeEach(async () => {
  echoed = '';
  echo = net.createServer((socket) => {
    echoSockets.add(socket);
    socket.on('close', () => echoSockets.delete(socket));
    socket.on('error', () => undefined).on('data', (chunk: Buffer) => (echoed += chunk.toString()));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startTcpProxy({ port: (echo.address() as net.AddressInfo).port });
});

afterEach(async () => {
  for (const client of clients) client.destroy();
  clients.clear();
  await proxy.close();
  for (const socket of echoSockets) socket.destroy();
  await new Promise((resolve) => echo.close(resolve));
});

/** Resolves once `condition` holds, checking after each turn of the event loop. */
function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setImmediate(check));
    check();
  });
}

/** A client through the proxy, with what it received and how it ended. */
function connect(through: TcpProxy = proxy) {
  const socket = net.connect({ port: through.port, host: '127.0.0.1' });
  clients.add(socket);
  const state = { received: '', error: undefined as NodeJS.ErrnoException | undefined, closed: false };
  const closed = new Promise<void>((resolve) => socket.on('close', () => ((state.closed = true), resolve())));
  socket.on('data', (chunk: Buffer) => (state.received += chunk.toString()));
  socket.on('error', (error) => (state.error = error));
  const connected = new Promise<void>((resolve) => socket.once('connect', resolve));
  const echoed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (state.received.includes(text)) resolve();
        else if (state.closed) reject(new Error(`closed before "${text}" came back`));
        else setImmediate(check);
      };
      check();
    });
  return { socket, state, closed, connected, echoed };
}

describe('startTcpProxy', () => {
  it('forwards both ways', async () => {
    const client = connect();
    client.socket.write('hello');
    await client.echoed('hello');
    expect(proxy.openConnections).toBe(1);
  });

  it('a cut resets every open connection, resets new ones while it lasts, and forwards again after', async () => {
    const before = connect();
    before.socket.write('one');
    await before.echoed('one');
    const cut = proxy.cut(60_000, 'reset');
    await before.closed;
    expect(before.state.error?.code).toBe('ECONNRESET');
    const during = connect();
    await during.closed;
    expect(during.state.received).toBe('');
    proxy.heal();
    await cut;
    const after = connect();
    after.socket.write('two');
    await after.echoed('two');
  });

  it('a blackhole holds new connections without forwarding a byte, and closes them when it ends', async () => {
    const cut = proxy.cut(60_000, 'blackhole');
    const held = connect();
    await held.connected;
    held.socket.write('lost');
    await until(() => proxy.acceptedConnections === 1);
    expect(held.state.closed).toBe(false);
    expect(echoed).toBe('');
    proxy.heal();
    await cut;
    await held.closed;
    expect(held.state.received).toBe('');
  });

  it('a stall forwards nothing until it ends, then delivers what was sent meanwhile, in order', async () => {
    const client = connect();
    client.socket.write('a');
    await client.echoed('a');
    const stall = proxy.stall(60_000);
    client.socket.write('b');
    client.socket.write('c');
    const late = connect();
    late.socket.write('d');
    await until(() => proxy.acceptedConnections === 2);
    // What another, unstalled path to the server carries after that arrives; the stalled bytes do not.
    const other = await startTcpProxy({ port: (echo.address() as net.AddressInfo).port });
    const control = connect(other);
    control.socket.write('z');
    await control.echoed('z');
    control.socket.destroy();
    await other.close();
    expect(echoed).toBe('az');
    proxy.heal();
    await stall;
    await Promise.all([client.echoed('abc'), late.echoed('d')]);
    expect(client.state.received).toBe('abc');
    expect(client.state.closed).toBe(false);
  });

  it('refuses a second window while one is in progress, a negative duration and an unknown mode', async () => {
    const cut = proxy.cut(60_000, 'reset');
    await expect(proxy.stall(10)).rejects.toThrow(/already in progress/);
    proxy.heal();
    await cut;
    await expect(proxy.cut(-1, 'reset')).rejects.toThrow(RangeError);
    await expect(proxy.cut(10, 'drop' as never)).rejects.toThrow(/"reset" or "blackhole"/);
    await expect(startTcpProxy({ port: 0 })).rejects.toThrow(RangeError);
  });

  it('close() ends every connection and stops listening', async () => {
    const client = connect();
    client.socket.write('x');
    await client.echoed('x');
    await proxy.close();
    await client.closed;
    const refused = net.connect({ port: proxy.port, host: '127.0.0.1' });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => refused.on('error', resolve));
    expect(error.code).toBe('ECONNREFUSED');
  });
});
