/**
 * The relay's page in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core), with a stand-in for the Stately inspector served on
 * 127.0.0.1: what the page hands the inspector frame, and what it reports
 * when the inspector does not load.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startInspectorRelay, type InspectorRelay } from '../src/inspect/inspector-relay.js';
import { withBackReferences } from '../src/inspect/back-references.js';
import { batchFrame } from '../src/inspect/inspection-frame.js';
import { chromiumRequirement, externalBinary } from './support/external-binary.js';

const CHROMIUM = externalBinary(chromiumRequirement);

/** Says it is connected, as the Stately inspector does, and keeps every message it is posted. */
const STAND_IN_INSPECTOR = `<!doctype html><script>
window.received = [];
addEventListener('message', (event) => window.received.push(event.data));
parent.postMessage({ type: '@statelyai.connected' }, '*');
</script>`;

let browser: Browser | undefined;
let standIn: Server | undefined;
let standInUrl = '';
let relay: InspectorRelay | undefined;

beforeAll(async () => {
  if (CHROMIUM === undefined) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  standIn = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(STAND_IN_INSPECTOR));
  await new Promise<void>((resolve) => standIn!.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/`;
}, 60_000);

afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (standIn ? standIn.close(resolve) : resolve(undefined)));
});

const event = (n: number) => ({ type: '@xstate.event', sessionId: 'x:0', event: { type: 'tool.answer', n, text: 'line one\nline "two"' } });

describe.skipIf(CHROMIUM === undefined)('the inspector relay page in a browser', () => {
  it('hands the inspector every event of batch frames (back-references resolved) and single frames, in order, replayed ones first', { timeout: 60_000 }, async () => {
    relay = await startInspectorRelay({ inspectorUrl: standInUrl });
    const inspector = new WebSocket(relay.webSocketUrl);
    await new Promise((resolve, reject) => inspector.once('open', resolve).once('error', reject));
    // Sent before the page is open: the relay replays them to it.
    inspector.send(batchFrame([event(1), event(2)].map((value) => JSON.stringify(value))));

    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(relay.pageUrl);
    await relay.viewerConnected(AbortSignal.timeout(20_000)).catch((error: unknown) => {
      throw new Error(`the page did not connect (page errors: ${errors.join('; ') || 'none'})`, { cause: error });
    });
    inspector.send(JSON.stringify(event(3)));
    inspector.send(batchFrame([event(4), event(5), event(6)].map((value) => JSON.stringify(value))));
    // A frame whose second snapshot refers back to the first: the page hands on both whole.
    const snapshot = { status: 'active', context: { config: { maxSteps: 5 }, steps: 1 }, value: 'idle' };
    const snapshots = [
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot },
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot: { ...snapshot, context: { ...snapshot.context, steps: 2 } } },
    ];
    inspector.send(batchFrame(withBackReferences(snapshots)!.map((value) => JSON.stringify(value)), true));

    const frame = page.frames().find((candidate) => candidate.url() === standInUrl)!;
    const received = () => frame.evaluate(() => (window as unknown as { received: unknown[] }).received);
    await expect.poll(async () => (await received()).length, { timeout: 30_000 }).toBe(8);
    expect(await received()).toEqual([...[1, 2, 3, 4, 5, 6].map(event), ...snapshots]);
    expect(errors).toEqual([]);
    inspector.close();
    await page.close();
  });

  it('reports that the inspector did not load, and says so on the page', { timeout: 60_000 }, async () => {
    // A port nothing listens on: the inspector frame never says it is connected.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((resolve) => closed.close(resolve));
    relay = await startInspectorRelay({ inspectorUrl: deadUrl, inspectorLoadTimeoutMs: 500 });
    const reason = new Promise<string>((resolve) => relay!.onInspectorUnavailable(resolve));

    const page = await browser!.newPage();
    await page.goto(relay.pageUrl);
    expect(await reason).toContain('did not load');
    await expect.poll(() => page.locator('#offline').textContent()).toContain('The run goes on');
    await page.close();
  });
});
