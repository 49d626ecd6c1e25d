/**
 * `loopchart open` in headless Chromium (Debian's chromium through playwright-core): a session
 * recorded with a retry, tools, a compaction and an approval, in a file store and in Postgres, is
 * opened with the built CLI; every frame is stepped through with the keyboard and the lit state
 * and the context shown are checked against the record; a screenshot is taken; a fork made from
 * the page at step 2 with another message runs on a local OpenAI-compatible server while the
 * original session file stays byte for byte the same; a 1,000-step session's page is ready fast.
 */
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent.js';
import { scriptedModel } from '../../src/test/index.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { contextAt } from '../../src/time-travel/context-at.js';
import { playbackData } from '../../src/playback/playback-data.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';
import { buildCli, cleanEnv, startCli, waitFor, type CliProcess } from '../cli/support/cli-process.js';
import { chromiumRequirement, externalBinary } from '../support/external-binary.js';
import { startOpenAIServer, streamResponse, type OpenAIServer } from '../support/openai-sse-server.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { recordSession } from '../support/recorded-session.js';
import { addTool } from '../support/tools.js';

const CHROMIUM = externalBinary(chromiumRequirement);
const POSTGRES = CHROMIUM === undefined ? undefined : postgresBinary();
const RESULTS = path.resolve(import.meta.dirname, '../../test-results');
/** Loose on purpose: a busy machine must not fail it; the figure itself is printed (and benched). */
const READY_BOUND_MS = 5_000;

let browser: Browser | undefined;
let dir: string;
const processes: CliProcess[] = [];

beforeAll(async () => {
  if (CHROMIUM === undefined) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-playback-'));
  await buildCli();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 180_000);

afterAll(async () => {
  for (const child of processes) {
    child.child.kill('SIGINT');
    await child.done;
  }
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `loopchart open` started, and the page it printed. */
async function open(args: string[]): Promise<{ url: string; cli: CliProcess }> {
  const cli = startCli(['open', ...args], { env: cleanEnv(), timeoutMs: 600_000 });
  processes.push(cli);
  await waitFor(() => /open: (http:\S+)/.test(cli.stderr) || cli.child.exitCode !== null, 'loopchart open to print its page', 30_000);
  const url = /open: (http:\S+)/.exec(cli.stderr)?.[1];
  if (url === undefined) throw new Error(`loopchart open did not start: ${cli.stderr}`);
  return { url, cli };
}

async function stop(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGINT');
  const { code } = await cli.done;
  expect(code).toBe(0);
}

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

/** Steps through every frame from the first with → and checks the lit state and the context at each. */
async function stepThrough(page: Page, store: SessionStore, sessionId: string): Promise<void> {
  const [log, view] = await Promise.all([store.read(sessionId), openSessionRecord(store, sessionId)]);
  const { frames } = playbackData(view!);
  expect(frames.map((frame) => frame.to)).toEqual(expect.arrayContaining(['running.retrying', 'running.compacting', 'running.awaitingApproval', 'running.toolExec']));
  await page.keyboard.press('Home');
  for (let index = 0; index < frames.length; index++) {
    const frame = frames[index]!;
    await page.waitForSelector(`#context[data-frame="${index}"]`, { state: "attached" });
    expect(await page.locator('svg.statechart g.state.active').getAttribute('data-state')).toBe(frame.to);
    expect(await page.locator('#current-state').getAttribute('data-state')).toBe(frame.to);
    const context = contextAt(log!, view!, frame.run, frame.point);
    const shown = await page.locator('#context > li').evaluateAll((items) => items.map((item) => [(item as HTMLElement).dataset.role, item.querySelector('pre')!.textContent]));
    expect(shown.map(([role]) => role)).toEqual(context.map((message) => message.role));
    const firstText = context.find((message) => typeof message.content === 'string')?.content;
    if (typeof firstText === 'string') expect(shown.map(([, text]) => text)).toContain(firstText);
    if (index < frames.length - 1) await page.keyboard.press('ArrowRight');
  }
  await page.keyboard.press('ArrowRight');
  expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 1));
  await page.keyboard.press('ArrowLeft');
  expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 2));
  await page.keyboard.press('End');
  expect(await page.evaluate(() => document.body.dataset.frame)).toBe(String(frames.length - 1));
}

describe.skipIf(CHROMIUM === undefined)('loopchart open in a browser', () => {
  it('steps through a file-store session with the keyboard, lighting each state and showing its context, fetching nothing from elsewhere', { timeout: 180_000 }, async () => {
    const store = fileStore(path.join(dir, 'sessions'));
    await recordSession(store, 'recorded');
    const { url, cli } = await open(['recorded', '--session', path.join(dir, 'sessions')]);
    const { page, requests, errors } = await openPage(url);
    await stepThrough(page, store, 'recorded');
    expect(requests.every((request) => request.startsWith(new URL(url).origin))).toBe(true);
    expect(errors).toEqual([]);

    await mkdir(RESULTS, { recursive: true });
    const screenshot = path.join(RESULTS, 'playback.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
    const diagram = await page.locator('svg.statechart').boundingBox();
    expect(diagram!.width).toBeGreaterThan(300);
    expect(diagram!.height).toBeGreaterThan(200);
    expect(await page.locator('svg.statechart g.state.active').isVisible()).toBe(true);
    await page.close();
    await stop(cli);
  });

  describe.skipIf(POSTGRES === undefined)('on Postgres', () => {
    let server: PostgresServer | undefined;
    let pool: pg.Pool | undefined;
    afterAll(async () => {
      await pool?.end();
      await server?.stop();
    });

    it('steps through the same session kept in Postgres', { timeout: 180_000 }, async () => {
      server = await startPostgres(POSTGRES!);
      const url = await server.createDatabase('playback');
      pool = new pg.Pool({ connectionString: url });
      const store = pgStore(pool);
      await recordSession(store, 'recorded-pg');
      const opened = await open(['recorded-pg', '--pg', url]);
      const { page, errors } = await openPage(opened.url);
      await stepThrough(page, store, 'recorded-pg');
      expect(errors).toEqual([]);
      await page.close();
      await stop(opened.cli);
    });
  });

  describe('forking from the page', () => {
    let model: OpenAIServer | undefined;
    afterAll(() => model?.close());

    it('forks at step 2 with another message; the fork runs on and opens in the page, the original file byte-identical', { timeout: 180_000 }, async () => {
      const sessions = path.join(dir, 'fork-sessions');
      const store = fileStore(sessions);
      await recordSession(store, 'to-fork');
      const original = path.join(sessions, 'to-fork.jsonl');
      const before = await readFile(original);
      model = await startOpenAIServer([streamResponse({ text: ['Only ', 'the first.'] })]);
      const { url, cli } = await open(['to-fork', '--session', sessions, '--model', 'openai-compatible:fork-model', '--base-url', model.baseURL, '--tools', 'read']);

      const view = (await openSessionRecord(store, 'to-fork'))!;
      const { frames } = playbackData(view);
      const atStep2 = frames.findIndex((frame) => view.checkpoints.find((checkpoint) => checkpoint.id === frame.forkCheckpoint)?.step === 2);
      expect(atStep2).toBeGreaterThan(0);
      const { page } = await openPage(url);
      await page.locator('#scrubber').fill(String(atStep2));
      await page.waitForSelector(`#context[data-frame="${atStep2}"]`, { state: "attached" });
      await page.locator('#fork-prompt').fill('Only the first measurement, please.');
      await Promise.all([page.waitForURL((address) => !address.searchParams.get('session')?.startsWith('to-fork')), page.locator('#fork-run').click()]);
      const forkId = new URL(page.url()).searchParams.get('session')!;
      await waitFor(() => cli.stderr.includes(`fork ${forkId}: completed`), `the fork to complete: ${cli.stderr}`, 60_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\n${cli.stderr}`);
      });

      const fork = await store.read(forkId);
      expect(fork?.header.forkedFrom).toEqual({ sessionId: 'to-fork', checkpoint: frames[atStep2]!.forkCheckpoint });
      expect(model.requests[0]!.rawBody).toContain('Only the first measurement, please.');
      expect(model.requests).toHaveLength(1);
      // The page follows the fork: its last frame comes to the run's end.
      await page.waitForFunction(() => document.querySelector('#outcome')?.getAttribute('data-outcome') === 'completed');
      expect(await readFile(original)).toEqual(before);
      await page.close();
      await stop(cli);
    });
  });

  it('opens a 1,000-step session, its load-to-ready mark recorded', { timeout: 300_000 }, async () => {
    const sessions = path.join(dir, 'long-sessions');
    const steps = 1_000;
    const turns = Array.from({ length: steps }, (_, index) => ({ toolCalls: [{ id: `c${index}`, name: 'add', input: { a: index, b: 1 } }] }));
    const agent = createAgent({ model: scriptedModel([...turns, { text: 'done' }]), tools: { add: addTool }, maxSteps: steps + 1, store: fileStore(sessions), sessionId: 'long' });
    expect((await agent.run('Count.')).outcome).toBe('completed');
    await agent.dispose();
    const { url, cli } = await open(['long', '--session', sessions]);
    const { page } = await openPage(url);
    const readyMs = await page.evaluate(() => performance.getEntriesByName('loopchart-ready')[0]!.startTime);
    const events = Number(await page.locator('#scrubber').getAttribute('max')) + 1;
    process.stderr.write(`[playback] a ${steps}-step session (${events} events) was ready ${Math.round(readyMs)} ms after navigation\n`);
    expect(events).toBeGreaterThan(steps * 4);
    expect(readyMs).toBeLessThan(READY_BOUND_MS);
    await page.close();
    await stop(cli);
  });
});
