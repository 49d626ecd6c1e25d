/**
 * The playback page in headless Chromium (Debian's chromium through playwright-core), served
 * in-process over a recorded session in a file store: every frame stepped through with the
 * keyboard, the lit state and the context checked against the record, a screenshot, and a fork
 * made from the page that runs on while the original file stays byte for byte the same.
 */
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent.js';
import { scriptedModel } from '../../src/models/index.js';
import { fileStore } from '../../src/persistence/file-store.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { playbackData } from '../../src/time-travel/playback-data.js';
import { startPlaybackServer, type PlaybackServer } from '../../src/time-travel/playback-server.js';
import { runOnFork } from '../../src/time-travel/run-on-fork.js';
import type { RunTrace } from '../../src/trace/run-trace.js';
import { chromiumRequirement, externalBinary } from '../support/external-binary.js';
import { addTool } from '../support/tools.js';
import { interimRecord } from './support/interim-record.js';

const CHROMIUM = externalBinary(chromiumRequirement);
const SCREENSHOT = path.resolve(import.meta.dirname, '../../test-results/playback.png');
/** Loose on purpose: a busy machine must not fail it; the figure itself is printed and benched. */
const READY_BOUND_MS = 5_000;

let browser: Browser | undefined;
let dir: string | undefined;
let store: SessionStore;
const traces = new Map<string, RunTrace[]>();

async function recordSession(sessionId: string): Promise<void> {
  const agent = createAgent({
    model: scriptedModel([
      { error: { status: 503, message: 'overloaded' } },
      { text: 'Adding.', toolCalls: [{ id: 'a1', name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ id: 'a2', name: 'add', input: { a: 3, b: 4 } }] },
      { text: 'The sums are 3 and 7.' },
    ]),
    tools: { add: addTool },
    approval: { ask: ['add'] },
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    store,
    sessionId,
  });
  agent.events$.subscribe((event) => {
    if (event.type === 'approval-request') agent.approve(event.toolCallId);
  });
  const result = await agent.run('Add 1+2, then 3+4.');
  await agent.dispose();
  expect(result.outcome).toBe('completed');
  traces.set(sessionId, [...(traces.get(sessionId) ?? []), result.trace!]);
}

async function recordLongSession(sessionId: string, steps: number): Promise<void> {
  const turns = Array.from({ length: steps }, (_, index) => ({ toolCalls: [{ id: `c${index}`, name: 'add', input: { a: index, b: 1 } }] }));
  const agent = createAgent({ model: scriptedModel([...turns, { text: 'done' }]), tools: { add: addTool }, maxSteps: steps + 1, store, sessionId });
  const result = await agent.run('Count.');
  await agent.dispose();
  expect(result.outcome).toBe('completed');
  traces.set(sessionId, [result.trace!]);
}

beforeAll(async () => {
  if (CHROMIUM === undefined) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-playback-'));
  store = fileStore(dir);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function openPage(url: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1600, height: 1000 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, requests, errors };
}

describe.skipIf(CHROMIUM === undefined)('the playback page in a browser', () => {
  let server: PlaybackServer | undefined;
  afterAll(() => server?.close());

  it('steps through every state with the keyboard, lighting the state and showing the context of each point', { timeout: 120_000 }, async () => {
    await recordSession('tools-approval-retry');
    const record = interimRecord(traces);
    server = await startPlaybackServer({ store, sessionId: 'tools-approval-retry', ...record });
    const view = (await record.openSessionRecord(store, 'tools-approval-retry'))!;
    const log = (await store.read('tools-approval-retry'))!;
    const { frames } = playbackData(view);
    expect(frames.map((frame) => frame.to)).toEqual(expect.arrayContaining(['running.awaitingApproval', 'running.retrying', 'running.toolExec']));

    const { page, requests, errors } = await openPage(server.pageUrl);
    expect(requests.every((url) => url.startsWith('http://127.0.0.1:'))).toBe(true);
    await page.keyboard.press('Home');
    for (let index = 0; index < frames.length; index++) {
      const frame = frames[index]!;
      await page.waitForSelector(`#context[data-frame="${index}"]`);
      expect(await page.locator('svg.statechart g.state.active').getAttribute('data-state')).toBe(frame.to);
      expect(await page.locator('#current-state').getAttribute('data-state')).toBe(frame.to);
      const context = record.contextAt(log, view, frame.run, frame.point);
      expect(Number(await page.locator('#context').getAttribute('data-count'))).toBe(context.length);
      const roles = await page.locator('#context > li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.role));
      expect(roles).toEqual(context.map((message) => message.role));
      if (index < frames.length - 1) await page.keyboard.press('ArrowRight');
    }
    // The last frame stays lit at the end; End and ← move as they say.
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 1));
    await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 2));
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 1));
    expect(errors).toEqual([]);

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
    const diagram = await page.locator('svg.statechart').boundingBox();
    expect(diagram!.width).toBeGreaterThan(300);
    expect(diagram!.height).toBeGreaterThan(200);
    await page.close();
  });

  it('forks at step 2 with a different message from the page; the fork runs on and the original file stays byte-identical', { timeout: 120_000 }, async () => {
    await recordSession('to-fork');
    const original = path.join(dir!, 'to-fork.jsonl');
    const before = await readFile(original);
    const record = interimRecord(traces);
    const forkRuns: Promise<unknown>[] = [];
    await server?.close();
    server = await startPlaybackServer({
      store,
      sessionId: 'to-fork',
      ...record,
      runFork: async (forkId, request) => {
        const fork = createAgent({ model: scriptedModel([{ text: 'Forked answer.' }]), tools: { add: addTool }, store, sessionId: forkId });
        const { result } = await runOnFork(fork, request.prompt);
        forkRuns.push(result.then(async (ended) => {
          await fork.dispose();
          traces.set(forkId, [ended.trace!]);
          return ended;
        }));
      },
    });
    const view = (await record.openSessionRecord(store, 'to-fork'))!;
    const { frames } = playbackData(view);
    const atStep2 = frames.findIndex((frame) => frame.step === 2 && frame.forkCheckpoint !== undefined && view.checkpoints.find((checkpoint) => checkpoint.id === frame.forkCheckpoint)!.step === 2);
    expect(atStep2).toBeGreaterThan(0);

    const { page } = await openPage(server.pageUrl);
    await page.locator('#scrubber').fill(String(atStep2));
    await page.waitForSelector(`#context[data-frame="${atStep2}"]`);
    await page.locator('#fork-prompt').fill('Only the first sum, please.');
    await Promise.all([page.waitForURL(/session=(?!to-fork)/), page.locator('#fork-run').click()]);
    const forkId = new URL(page.url()).searchParams.get('session')!;
    expect(forkId).not.toBe('to-fork');
    const [ended] = (await Promise.all(forkRuns)) as [{ outcome: string; messages: Array<{ role: string; content: unknown }> }];
    expect(ended.outcome).toBe('completed');
    expect(JSON.stringify(ended.messages)).toContain('Only the first sum, please.');
    const fork = await store.read(forkId);
    expect(fork?.header.forkedFrom).toEqual({ sessionId: 'to-fork', checkpoint: frames[atStep2]!.forkCheckpoint });
    expect(await readFile(original)).toEqual(before);
    await page.close();
  });

  it('opens a 1,000-step session, its load-to-ready mark recorded', { timeout: 300_000 }, async () => {
    await recordLongSession('long', 1_000);
    const record = interimRecord(traces);
    await server?.close();
    server = await startPlaybackServer({ store, sessionId: 'long', ...record });
    const { page } = await openPage(server.pageUrl);
    const readyMs = await page.evaluate(() => performance.getEntriesByName('loopchart-ready')[0]!.startTime);
    process.stderr.write(`[playback] a 1,000-step session (${await page.locator('#scrubber').getAttribute('max')} events) was ready ${Math.round(readyMs)} ms after navigation\n`);
    expect(readyMs).toBeLessThan(READY_BOUND_MS);
    await page.close();
  });
});
