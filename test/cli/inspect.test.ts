import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { frameEventTexts } from '../../src/inspect/inspection-frame.js';
import { buildCli, runCli, startCli, waitFor } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const PAGE = /inspector: open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+) /;

/** Resolves with true when the relay accepts the WebSocket connection, false when it refuses it. */
function connects(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('open', () => {
      socket.close();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A WebSocket connection made by hand, so the test can write frames `ws` would never send. Resolves once the relay answered 101. */
function rawWebSocket(url: string): Promise<Socket> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.once('error', reject);
    socket.once('data', (data: Buffer) => (data.toString().startsWith('HTTP/1.1 101') ? resolve(socket) : reject(new Error(data.toString()))));
  });
}

/** The header of a masked text frame that announces `length` bytes of payload (none of which follow). */
function textFrameHeader(length: number): Buffer {
  const header = Buffer.alloc(14);
  header[0] = 0x81; // FIN, text
  header[1] = 0x80 | 127; // masked, 64-bit length
  header.writeBigUInt64BE(BigInt(length), 2);
  randomBytes(4).copy(header, 10);
  return header;
}

/** The close code in the first close frame `socket` receives. */
function closeCodeOf(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      // An unmasked close frame from the server: 0x88, length, then the code.
      if (received.length >= 4 && received[0] === 0x88) resolve(received.readUInt16BE(2));
    });
    socket.on('close', () => reject(new Error('closed without a close frame')));
  });
}

describe('loopchart run --inspect', () => {
  it('prints the inspector page on stderr, serves it and its events on 127.0.0.1 while the run lasts, and the run completes', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'slow.json', {
      prompt: 'List the files.',
      turns: [{ delayMs: 700, toolCalls: [{ name: 'ls', input: {} }] }, { text: 'Nothing there.' }],
    });
    const cli = startCli(['run', script, '--inspect', '--json']);
    await waitFor(() => PAGE.test(cli.stderr), 'the inspector page on stderr');
    const pageUrl = PAGE.exec(cli.stderr)![1]!;

    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>loopchart · Stately inspector</title>');
    const webSocketUrl = pageUrl.replace('http:', 'ws:');
    expect(html).toContain(JSON.stringify(webSocketUrl));

    const received: Array<{ type?: string }> = [];
    const socket = new WebSocket(webSocketUrl);
    socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString()) as { type?: string }));
    await waitFor(() => received.some((event) => event.type === '@xstate.snapshot'), 'an inspection snapshot from the relay');

    const { code, stdout, stderr } = await cli.done;
    socket.close();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', text: 'Nothing there.' });
    expect(stderr).toMatch(/^inspector: open http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+ to watch the run in the Stately inspector \(it closes when the run ends\)\n$/);
    expect(received.map((event) => event.type)).toEqual(expect.arrayContaining(['@xstate.actor', '@xstate.event', '@xstate.snapshot']));
    await expect(fetch(pageUrl)).rejects.toThrow();
  });

  it('is not readable by other websites: the page and the socket need the token, and a foreign Origin is refused', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'slow.json', { prompt: 'Wait.', turns: [{ delayMs: 60_000, text: 'never' }] });
    const cli = startCli(['run', script, '--inspect', '--json']);
    await waitFor(() => PAGE.test(cli.stderr), 'the inspector page on stderr');
    const pageUrl = PAGE.exec(cli.stderr)![1]!;
    const origin = new URL(pageUrl).origin;
    const webSocketUrl = pageUrl.replace('http:', 'ws:');

    expect((await fetch(origin)).status).toBe(403);
    expect((await fetch(`${origin}/?token=wrong`)).status).toBe(403);
    expect(await connects(origin.replace('http:', 'ws:'))).toBe(false);
    expect(await connects(webSocketUrl, { origin: 'https://evil.example.com' })).toBe(false);
    expect(await connects(webSocketUrl, { origin })).toBe(true);
    expect(await connects(webSocketUrl)).toBe(true);

    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(130);
  });

  it('on a port in use exits 2 with a clear message instead of crashing', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const dir = await tempDir();
      const script = await writeScript(dir, 'quick.json', { prompt: 'Hi.', turns: [{ text: 'Hello.' }] });
      const { code, stderr } = await runCli(['run', script, `--inspect=${port}`]);
      expect(code).toBe(2);
      expect(stderr).toContain(`--inspect: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      expect(stderr).not.toContain('Unhandled');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('--inspect-wait starts a short run only once the page is open', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'quick.json', { prompt: 'Hi.', turns: [{ text: 'Hello.' }] });
    const cli = startCli(['run', script, '--inspect', '--inspect-wait', '--json']);
    await waitFor(() => PAGE.test(cli.stderr) && cli.stderr.includes('waiting for the page'), 'the waiting notice');
    const webSocketUrl = PAGE.exec(cli.stderr)![1]!.replace('http:', 'ws:');
    expect(cli.stdout).toBe('');

    // What the page does: connect from its own origin and say it is there; then the run's events replay to it.
    const received: Array<{ type?: string }> = [];
    const page = new WebSocket(webSocketUrl, { headers: { origin: new URL(webSocketUrl.replace('ws:', 'http:')).origin } });
    // A page gets the events in batch frames, as the relay's page reads them.
    page.on('message', (data: Buffer) => {
      for (const text of frameEventTexts(data.toString())) received.push(JSON.parse(text) as { type?: string });
    });
    page.on('open', () => page.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' })));

    const { code, stdout } = await cli.done;
    page.close();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', text: 'Hello.' });
    expect(received.some((event) => event.type === '@xstate.actor')).toBe(true);
  });

  it('a token holder\'s frame that is not UTF-8, or that announces 200 MiB, closes only that client: the run completes and writes its trace', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'quick.json', { prompt: 'Hi.', turns: [{ text: 'Hello.' }] });
    const trace = path.join(dir, 'run.trace.json');
    const cli = startCli(['run', script, '--inspect', '--inspect-wait', '--json', '--trace', trace]);
    await waitFor(() => PAGE.test(cli.stderr) && cli.stderr.includes('waiting for the page'), 'the waiting notice');
    const webSocketUrl = PAGE.exec(cli.stderr)![1]!.replace('http:', 'ws:');

    const invalidUtf8 = new WebSocket(webSocketUrl);
    invalidUtf8.on('error', () => undefined);
    await new Promise((resolve) => invalidUtf8.once('open', resolve));
    const invalidClosed = new Promise<number>((resolve) => invalidUtf8.once('close', (code: number) => resolve(code)));
    invalidUtf8.send(Buffer.from([0xc3, 0x28]), { binary: false });
    expect(await invalidClosed).toBe(1007);

    const oversized = await rawWebSocket(webSocketUrl);
    const oversizedClosed = closeCodeOf(oversized);
    oversized.write(textFrameHeader(200 * 2 ** 20));
    expect(await oversizedClosed).toBe(1009);
    oversized.destroy();

    const page = new WebSocket(webSocketUrl, { headers: { origin: new URL(webSocketUrl.replace('ws:', 'http:')).origin } });
    const received: Array<{ type?: string }> = [];
    page.on('message', (data: Buffer) => {
      for (const text of frameEventTexts(data.toString())) received.push(JSON.parse(text) as { type?: string });
    });
    page.on('open', () => page.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' })));

    const { code, stdout, stderr } = await cli.done;
    page.close();
    expect(stderr).not.toContain('Unhandled');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', text: 'Hello.' });
    expect(stderr).toMatch(/inspector: a client was disconnected: .*UTF-8.*; the run goes on/i);
    expect(stderr).toMatch(/inspector: a client was disconnected: .*payload.*; the run goes on/i);
    expect(received.some((event) => event.type === '@xstate.actor')).toBe(true);
    expect(existsSync(trace)).toBe(true);
    expect(JSON.parse(readFileSync(trace, 'utf8'))).toMatchObject({ outcome: 'completed' });
  });
});
