import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../src/index.js';
import { createWebSocketInspector, startInspectorRelay, type InspectorRelay } from 'loopchart/inspect';
import { WebSocket } from 'ws';
import { batchFrame } from '../src/inspect/inspection-frame.js';
import { redactSecrets, safeJson, sanitizeContext, type SanitizeMemo } from '../src/inspect/sanitize.js';
import { stateName } from '../src/machine/state-name.js';
import { streamResponse, useOpenAIServers } from './support/openai-sse-server.js';
import { addTool } from './support/tools.js';
import { expandingFrame } from './support/expanding-frame.js';

const KEY = 'sk-inspect-test-91e2b7c4d0';
let relay: InspectorRelay | undefined;
const serve = useOpenAIServers();
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

/** Waits for frames that arrive over WebSockets, as long as a loaded machine needs (short of the test's own limit). */
async function until(condition: () => boolean, what: string): Promise<void> {
  await vi.waitFor(() => {
    if (!condition()) throw new Error(`still waiting for ${what}`);
  }, { timeout: 50_000, interval: 10 });
}

describe('the Stately inspector over a local WebSocket relay', () => {
  it('delivers actor, event and snapshot messages of a tool-loop run, and never the API key', async () => {
    relay = await startInspectorRelay();
    expect(relay.webSocketUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}&frames=references$/);
    const received: StatelyInspectionEvent[] = [];
    const raw: string[] = [];
    const receiver = createWebSocketReceiver({ server: relay.webSocketUrl });
    receiver.subscribe((event) => {
      received.push(event);
      raw.push(JSON.stringify(event));
    });

    const server = await serve([
      streamResponse({ text: 'Adding.', toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 2, b: 3 } }] }),
      streamResponse({ text: 'It is 5.' }),
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: KEY }).chat('gpt-test');
    const inspector = createWebSocketInspector({ url: relay.webSocketUrl, secrets: [KEY] });
    const agent = createAgent({ model, tools: { add: addTool }, inspect: inspector.inspect, instructions: `never say ${KEY}` });
    // The inspector holds its events until its socket is open, and the relay replays them to the receiver.
    const result = await agent.run(`the key is ${KEY}, add 2 and 3`);
    expect(result.outcome).toBe('completed');

    // The root actor is the session chart; the run chart is its invoked child, named `agent`.
    const actors = () => received.filter((event) => event.type === '@xstate.actor') as Array<StatelyInspectionEvent & { name: string; parentId?: string }>;
    const runChartId = () => actors().find((event) => event.name === 'agent' && event.parentId === event.rootId)?.sessionId;
    const snapshotsOf = (sessionId: string | undefined) =>
      received.filter((event) => event.type === '@xstate.snapshot' && event.sessionId === sessionId) as Array<StatelyInspectionEvent & { snapshot: { value: unknown } }>;
    const runSnapshots = () => snapshotsOf(runChartId());
    await until(() => runSnapshots().some((event) => stateName(event.snapshot.value) === 'idle' && runSnapshots().indexOf(event) > 0), 'the final idle snapshot');
    await until(() => snapshotsOf(actors()[0]?.sessionId).some((event) => stateName(event.snapshot.value) === 'holding.live.idle' && snapshotsOf(actors()[0]?.sessionId).indexOf(event) > 0), 'the session back in idle');
    inspector.stop();

    expect(new Set(received.map((event) => event.type))).toEqual(new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot']));
    const states = runSnapshots().map((event) => stateName(event.snapshot.value));
    const visited = states.join(' > ');
    expect(visited).toMatch(/running\.llm\.calling.*running\.llm\.streaming.*running\.toolExec.*running\.llm\.calling.*idle$/);
    // The session chart's states are there too: a real actor system, the session at its root.
    // The state it was created in is on its actor event; its snapshots show each change after that.
    const sessionCreated = actors()[0] as unknown as { snapshot: { value: unknown } };
    const sessionStates = [sessionCreated.snapshot, ...snapshotsOf(actors()[0]?.sessionId).map((event) => event.snapshot)].map((snapshot) => stateName(snapshot.value));
    expect(actors()[0]?.name).toBe('session');
    expect(sessionStates.join(' > ')).toMatch(/holding\.live\.idle.*holding\.live\.running.*holding\.live\.idle/);
    const actorNames = received.filter((event) => event.type === '@xstate.actor').map((event) => (event as { name: string }).name);
    expect(actorNames).toEqual(expect.arrayContaining(['session', 'leaseRenewer', 'sessionWriter', 'agent', 'llm', 'tools']));
    expect(raw.some((message) => message.includes(KEY))).toBe(false);
    expect(raw.some((message) => message.includes('[redacted]'))).toBe(true);
  });
});

describe('the relay and batch frames', () => {
  type Client = Awaited<ReturnType<typeof client>>;
  /** A WebSocket client of the relay that records the frames it gets; `page` connects as the relay's page does. */
  async function client(url: string, options: { page?: boolean } = {}) {
    const origin = new URL(url.replace('ws:', 'http:')).origin;
    const socket = new WebSocket(url, options.page ? { headers: { origin } } : {});
    const frames: string[] = [];
    socket.on('message', (data: Buffer) => frames.push(data.toString()));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    if (options.page) socket.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' }));
    return { socket, frames };
  }
  /** A relay with its page connected (so it counts as viewed) and a Stately receiver, one event per frame. */
  async function relayWithPageAndReceiver(): Promise<{ url: string; page: Client; receiver: Client }> {
    relay = await startInspectorRelay();
    const page = await client(relay.webSocketUrl, { page: true });
    await relay.viewerConnected();
    const receiver = await client(relay.webSocketUrl);
    return { url: relay.webSocketUrl, page, receiver };
  }
  const events = (count: number, from = 0) => Array.from({ length: count }, (_, index) => JSON.stringify({ type: '@xstate.event', n: from + index }));

  it('passes a batch frame whole to the page and one event per frame to a Stately receiver, in order; a late page gets the recent frames', async () => {
    const { url, page, receiver } = await relayWithPageAndReceiver();
    const inspector = await client(url);
    inspector.socket.send(batchFrame(events(3)));
    inspector.socket.send(events(1, 3)[0]!);
    await until(() => page.frames.length === 2 && receiver.frames.length === 4, 'the frames at both clients');
    expect(page.frames).toEqual([batchFrame(events(3)), events(1, 3)[0]]);
    expect(receiver.frames).toEqual(events(4));
    expect(inspector.frames).toEqual([]);

    const latePage = await client(url, { page: true });
    const lateReceiver = await client(url);
    await until(() => latePage.frames.length === 2 && lateReceiver.frames.length === 4, 'the replay');
    expect(latePage.frames).toEqual(page.frames);
    expect(lateReceiver.frames).toEqual(events(4));
    for (const { socket } of [page, receiver, inspector, latePage, lateReceiver]) socket.close();
  });

  it('resolves the back-references of a frame for a Stately receiver, passes the frame as it is to the page, and sends no inspector another one’s events', async () => {
    const { url, page, receiver } = await relayWithPageAndReceiver();
    const first = await client(url);
    const second = await client(url);
    first.socket.send(batchFrame(events(1)));
    const snapshot = { status: 'active', context: { config: { maxSteps: 5 }, steps: 1 }, value: 'idle' };
    const frame = batchFrame(
      [
        JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot }),
        JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', event: { '@loopchart.same': 0 }, snapshot: { '@loopchart.patch': { base: 0, set: { context: { '@loopchart.patch': { set: { steps: 2 } } } } } } }),
      ],
      true,
    );
    second.socket.send(frame);
    await until(() => page.frames.length === 2 && receiver.frames.length === 3, 'the frames at the page and the receiver');
    expect(page.frames[1]).toBe(frame);
    expect(receiver.frames.slice(1).map((text) => JSON.parse(text) as unknown)).toEqual([
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot },
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot: { ...snapshot, context: { config: { maxSteps: 5 }, steps: 2 } } },
    ]);
    // The first inspector sent before the second did: it is an inspector, and gets none of the second's events.
    expect(first.frames).toEqual([]);
    expect(second.frames).toEqual([events(1)[0]]);
    for (const { socket } of [page, receiver, first, second]) socket.close();
  });

  it('goes on when a client sends a frame it cannot resolve: a Stately receiver gets nothing of it, then the next frames, and so does one that connects later', async () => {
    relay = await startInspectorRelay();
    const receiver = await client(relay.webSocketUrl);
    const inspector = await client(relay.webSocketUrl);
    inspector.socket.send(batchFrame(['{"type":"@xstate.event"', '{"snapshot":{"@loopchart.patch":{"unset":1}}}'], true));
    inspector.socket.send(batchFrame([events(1)[0]!, '{"type":"@xstate.snapshot","snapshot":{"@loopchart.patch":{"base":0,"unset":1,"set":[]}}}'], true));
    inspector.socket.send(events(1, 7)[0]!);
    await until(() => receiver.frames.length === 3, 'the frames after the broken one');
    expect(receiver.frames).toEqual([events(1)[0], '{"type":"@xstate.snapshot","snapshot":{}}', events(1, 7)[0]]);
    const late = await client(relay.webSocketUrl);
    await until(() => late.frames.length === 3, 'the replay');
    expect(late.frames).toEqual(receiver.frames);
    for (const { socket } of [receiver, inspector, late]) socket.close();
  });

  /** Resolves with the close code the relay gives `socket`. */
  const closeCode = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));

  it('closes only the client that sends a text frame that is not UTF-8 (1007) or a frame over its bound (1009), says so, and serves the others on', async () => {
    relay = await startInspectorRelay({ maxFrameBytes: 4096 });
    const closedReasons: string[] = [];
    relay.onClientClosed((reason) => closedReasons.push(reason));
    const page = await client(relay.webSocketUrl, { page: true });
    await relay.viewerConnected();
    const receiver = await client(relay.webSocketUrl);

    const invalidUtf8 = await client(relay.webSocketUrl);
    invalidUtf8.socket.on('error', () => undefined);
    const invalidClosed = closeCode(invalidUtf8.socket);
    invalidUtf8.socket.send(Buffer.from([0xc3, 0x28]), { binary: false });
    expect(await invalidClosed).toBe(1007);

    const oversized = await client(relay.webSocketUrl);
    oversized.socket.on('error', () => undefined);
    const oversizedClosed = closeCode(oversized.socket);
    oversized.socket.send(JSON.stringify({ type: '@xstate.event', pad: 'x'.repeat(8192) }));
    expect(await oversizedClosed).toBe(1009);
    expect(closedReasons).toEqual([expect.stringMatching(/^a client was disconnected: .*UTF-8/i), expect.stringMatching(/^a client was disconnected: .*payload/i)]);

    const inspector = await client(relay.webSocketUrl);
    inspector.socket.send(batchFrame(events(2)));
    await until(() => page.frames.length === 1 && receiver.frames.length === 2, 'the well-behaved inspector\'s frame');
    expect(page.frames).toEqual([batchFrame(events(2))]);
    expect(receiver.frames).toEqual(events(2));
    // Neither bad frame entered the replay buffer.
    const late = await client(relay.webSocketUrl);
    await until(() => late.frames.length === 2, 'the replay');
    expect(late.frames).toEqual(events(2));
    for (const { socket } of [page, receiver, inspector, late]) socket.close();
  });

  it('closes a client that sends a binary frame (1003), relays none of it, and keeps the page it would have broken', async () => {
    const { url, page, receiver } = await relayWithPageAndReceiver();
    const closedReasons: string[] = [];
    relay!.onClientClosed((reason) => closedReasons.push(reason));
    const binary = await client(url);
    binary.socket.on('error', () => undefined);
    const binaryClosed = closeCode(binary.socket);
    // Not UTF-8: passed on to the page as a text frame, it would make the page's WebSocket fail (1007).
    binary.socket.send(Buffer.from([0xc3, 0x28]), { binary: true });
    expect(await binaryClosed).toBe(1003);
    expect(closedReasons).toEqual([expect.stringMatching(/^a client was disconnected: it sent a binary frame/)]);
    const inspector = await client(url);
    inspector.socket.send(batchFrame(events(2)));
    await until(() => page.frames.length === 1 && receiver.frames.length === 2, 'the well-behaved inspector\'s frame');
    expect(page.socket.readyState).toBe(WebSocket.OPEN);
    expect(page.frames).toEqual([batchFrame(events(2))]);
    for (const { socket } of [page, receiver, inspector]) socket.close();
  });

  it('disconnects a client that reads nothing once it holds more than maxBufferedBytes unread, says so, and serves the others on', async () => {
    relay = await startInspectorRelay({ maxBufferedBytes: 256 * 1024 });
    const closedReasons: string[] = [];
    relay.onClientClosed((reason) => closedReasons.push(reason));
    const page = await client(relay.webSocketUrl, { page: true });
    await relay.viewerConnected();
    // A receiver that completes the WebSocket handshake, then never reads (a hung tab): raw TCP, paused.
    const url = new URL(relay.webSocketUrl);
    const stuck = connect(Number(url.port), '127.0.0.1');
    const upgraded = new Promise<void>((resolve) => stuck.once('data', () => resolve()));
    stuck.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    await upgraded;
    stuck.pause();
    stuck.on('error', () => undefined);
    const inspector = await client(relay.webSocketUrl);
    const big = events(1).map((text) => text.replace('}', `,"pad":"${'x'.repeat(64 * 1024)}"}`));
    // Far more than the kernel's socket buffers hold: what the stuck receiver does not read piles up in the relay.
    // Sent ten at a time, each ten once the page has the ones before: on a busy machine a burst could outrun the page too, which would then be cut off as well.
    const frames = 400;
    for (let sent = 0; sent < frames; sent += 10) {
      for (let frame = 0; frame < 10; frame++) inspector.socket.send(batchFrame(big));
      await until(() => page.frames.length === sent + 10 || closedReasons.length > 1, `frame ${sent + 10} at the page that reads`);
    }
    await until(() => closedReasons.length > 0 && page.frames.length === frames, 'the stuck receiver disconnected, and every frame at the page that reads');
    expect(closedReasons).toEqual([expect.stringMatching(/^a client was disconnected: it had not read \d+\.\d MiB of events \(maxBufferedBytes\)$/)]);
    stuck.destroy();
    for (const { socket } of [page, inspector]) socket.close();
  });

  it('gives a Stately receiver nothing of a small frame that would expand past its limit written whole, and goes on', async () => {
    const { url, page, receiver } = await relayWithPageAndReceiver();
    const inspector = await client(url);
    const expanding = expandingFrame({ snapshotBytes: 2 ** 20, copies: 100 });
    inspector.socket.send(expanding);
    inspector.socket.send(events(1, 7)[0]!);
    await until(() => receiver.frames.length === 1 && page.frames.length === 2, 'the frame after the expanding one');
    expect(receiver.frames).toEqual([events(1, 7)[0]]);
    // The page resolves frames itself: it gets this one as it came.
    expect(page.frames[0]).toBe(expanding);
    for (const { socket } of [page, receiver, inspector]) socket.close();
  });
});

describe('inspection sanitising', () => {
  it('summarises histories wherever they appear and redacts secrets deeply', () => {
    const context = { messages: Array.from({ length: 500 }, (_, i) => ({ role: 'user', content: `m${i}` })), run: { id: 'r' } };
    expect(sanitizeContext(context)).toEqual({ messages: { messages: 500, last: '{"role":"user","content":"m499"}' }, run: { id: 'r' } });
    expect(redactSecrets({ a: ['x sk-test-1234 y'], b: 'sk-test-1234' }, ['sk-test-1234'])).toEqual({ a: ['x [redacted] y'], b: '[redacted]' });
  });

  it('with a memo, reuses what it made for the parts a new context shares with an earlier one, and walks the new parts', () => {
    const memo: SanitizeMemo = new WeakMap();
    const config = { maxSteps: 5, nested: { messages: [{ role: 'user', content: 'a' }] } };
    const first = sanitizeContext({ config, messages: [{ role: 'user', content: 'one' }], run: { steps: 1 } }, [], memo);
    const history = [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }];
    const second = sanitizeContext({ config, messages: history, run: { steps: 2 } }, [], memo);
    expect(second.config).toBe(first.config);
    expect(second).toEqual({ config: { maxSteps: 5, nested: { messages: { messages: 1, last: '{"role":"user","content":"a"}' } } }, messages: { messages: 2, last: '{"role":"assistant","content":"two"}' }, run: { steps: 2 } });
    // The same object deeper than the walk goes stays as it is there, whatever the memo holds for it.
    const deep = { a: { b: { c: { d: { config } } } } };
    expect(sanitizeContext(deep, [], memo).a.b.c.d.config).toBe(config);
  });

  it('copies only the objects a history was summarised in: the rest are passed on as they are, in key order', () => {
    const run = { id: 'r', usage: { inputTokens: 3 } };
    const config = { maxSteps: 5 };
    const context = { config, messages: [{ role: 'user', content: 'hi' }], run };
    const sanitized = sanitizeContext(context);
    expect(sanitized).not.toBe(context);
    expect(sanitized.config).toBe(config);
    expect(sanitized.run).toBe(run);
    expect(Object.keys(sanitized)).toEqual(['config', 'messages', 'run']);
    const noHistory = { run, queues: { steering: [] } };
    expect(sanitizeContext(noHistory)).toBe(noHistory);
  });

  it('cuts cycles only: an object shared by two fields is written in both', () => {
    const shared = { tokens: 3 };
    const value: Record<string, unknown> = { usage: shared, stepUsage: shared, list: [shared, shared] };
    value.loop = { back: value };
    expect(JSON.parse(safeJson(value))).toEqual({ usage: { tokens: 3 }, stepUsage: { tokens: 3 }, list: [{ tokens: 3 }, { tokens: 3 }], loop: { back: '[circular]' } });
  });
});
