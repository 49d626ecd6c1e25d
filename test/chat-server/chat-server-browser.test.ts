import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModel } from '../../examples/chat-server/demo-model.js';
import { startChatServer, type ChatServer } from '../../examples/chat-server/server.js';
import { chromiumRequirement, externalBinary } from '../support/external-binary.js';

const CHROMIUM = externalBinary(chromiumRequirement);
const SCREENSHOT = 'test-results/chat-server.png';

let sessionsDir: string | undefined;
let server: ChatServer | undefined;
let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  if (CHROMIUM === undefined) return;
  sessionsDir = mkdtempSync(path.join(tmpdir(), 'loopchart-chat-browser-'));
  // The demo script, with short pauses between words so that the page really streams.
  server = await startChatServer({ sessionsDir, createModel: () => demoModel({ chunkDelayMs: 5 }) });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  await page.goto(server.url);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (sessionsDir) rmSync(sessionsDir, { recursive: true, force: true });
});

async function send(prompt: string): Promise<void> {
  await page.locator('#prompt').fill(prompt);
  await page.locator('#prompt').press('Enter');
}

const lastTurn = () => page.locator('.assistant').last();
const toolCard = (name: string) => lastTurn().locator(`.tool[data-tool-name="${name}"]`);
const shownResult = async (card: Locator): Promise<unknown> => JSON.parse((await card.locator('pre').last().textContent()) ?? '');

describe.skipIf(CHROMIUM === undefined)('the chat page in headless Chromium', () => {
  it('streams the answer and the tool result, asks before writing, and finishes once approved', async () => {
    await send('Water the plants on Friday');

    await expect.poll(() => toolCard('list_notes').getAttribute('data-state')).toBe('done');
    expect(await shownResult(toolCard('list_notes'))).toEqual({ titles: [] });
    const writeNote = toolCard('write_note');
    await expect.poll(() => writeNote.getAttribute('data-state')).toBe('waiting');
    expect(await lastTurn().locator('.text').allTextContents()).toEqual([
      'Let me look at your notes first.',
      'You have 0 notes so far. I will save this one as “Water the plants on Friday”.',
    ]);
    expect(await page.locator('#status').textContent()).toBe('waiting for approval');

    await writeNote.locator('button.approve').click();
    await expect.poll(() => lastTurn().locator('.run-end').getAttribute('data-outcome')).toBe('completed');
    expect(await writeNote.getAttribute('data-state')).toBe('done');
    expect(await shownResult(writeNote)).toEqual({ saved: 'Water the plants on Friday', noteCount: 1 });
    expect(await lastTurn().locator('.text').last().textContent()).toBe('Saved “Water the plants on Friday”. Your notebook now holds 1 note.');
    expect(await page.locator('#status').textContent()).toBe('idle');
  });

  it('continues the session with a second prompt, and a denied write is reported', async () => {
    await send('Call the dentist about the appointment next week');
    const writeNote = toolCard('write_note');
    await expect.poll(() => writeNote.getAttribute('data-state')).toBe('waiting');
    expect(await lastTurn().locator('.text').first().textContent()).toBe('Let me look at your notes first.');
    expect(await lastTurn().locator('.text').nth(1).textContent()).toMatch(/^You have 1 note so far\./);

    await writeNote.locator('button.deny').click();
    await expect.poll(() => lastTurn().locator('.run-end').getAttribute('data-outcome')).toBe('completed');
    expect(await writeNote.getAttribute('data-state')).toBe('denied');
    expect(await lastTurn().locator('.text').last().textContent()).toBe('All right, I did not save the note.');

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    // The header and the prompt box are sticky: a viewport as tall as the page shows them where a reader expects them.
    await page.setViewportSize({ width: 900, height: await page.evaluate(() => document.documentElement.scrollHeight) });
    await page.screenshot({ path: SCREENSHOT });
  });
});
