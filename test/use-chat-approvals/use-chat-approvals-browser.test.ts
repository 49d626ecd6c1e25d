import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModel } from '../../examples/use-chat-approvals/demo-model.js';
import { startPaymentChatServer, type PaymentChatServer } from '../../examples/use-chat-approvals/server.js';
import { chromiumRequirement, externalBinary } from '../support/external-binary.js';

const CHROMIUM = externalBinary(chromiumRequirement);
const SCREENSHOT = 'test-results/use-chat-approvals.png';

// One server for the file: its account is shared, so each test looks only at its own payee's payments.
let server: PaymentChatServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (CHROMIUM === undefined) return;
  // The demo script, with short pauses between words so that the page really streams.
  server = await startPaymentChatServer({ createModel: () => demoModel({ chunkDelayMs: 5 }) });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A new page is a new chat (useChat makes a new chat id); the requests it makes are recorded. */
async function openChat(): Promise<{ page: Page; requests: Request[] }> {
  const page = await browser!.newPage({ viewport: { width: 900, height: 900 } });
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  await page.goto(server!.url);
  return { page, requests };
}

async function send(page: Page, prompt: string): Promise<void> {
  await page.locator('#prompt').fill(prompt);
  await page.locator('#prompt').press('Enter');
}

/** Waits for what the page shows, with room for a busy machine (expect.poll's own default is one second). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

const payment = (page: Page) => page.locator('.assistant .tool[data-tool-name="send_payment"]');
const texts = (page: Page) => page.locator('.assistant .text').allTextContents();
const chatBodies = (requests: Request[]) =>
  requests.filter((request) => new URL(request.url()).pathname === '/api/chat').map((request) => request.postDataJSON() as { id: string; messages: Array<{ role: string; parts: Array<Record<string, unknown>> }> });

describe.skipIf(CHROMIUM === undefined)("the payments page, approving with useChat's own calls, in headless Chromium", { timeout: 60_000 }, () => {
  it('waits for Approve before paying, then pays once and says so', async () => {
    const { page, requests } = await openChat();
    await send(page, 'Pay 120 to Ada for the flowers');

    await eventually(() => payment(page).getAttribute('data-state')).toBe('approval-requested');
    expect(JSON.parse((await payment(page).locator('pre.input').textContent()) ?? '')).toEqual({ to: 'Ada', amount: 120 });
    expect(await page.locator('#status').getAttribute('data-state')).toBe('waiting-for-approval');
    expect(server!.ledger.payments.filter(({ to }) => to === 'Ada')).toEqual([]);

    await payment(page).locator('button.approve').click();
    await eventually(() => payment(page).getAttribute('data-state')).toBe('output-available');
    await eventually(() => page.locator('#status').getAttribute('data-state')).toBe('ready');

    expect(JSON.parse((await payment(page).locator('pre.output').textContent()) ?? '')).toMatchObject({ sent: 120, to: 'Ada' });
    expect(await texts(page)).toEqual(['I will send 120 to Ada.', expect.stringMatching(/^Done: 120 went to Ada\. Your balance is now \d+\.$/)]);
    expect(await page.locator('.assistant').count()).toBe(1);
    expect(server!.ledger.payments.filter(({ to }) => to === 'Ada')).toEqual([{ to: 'Ada', amount: 120 }]);

    // The answer went the AI SDK's way: useChat sent the conversation again, with the approval in the tool part.
    const bodies = chatBodies(requests);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.id).toBe(bodies[0]!.id);
    expect(bodies[1]!.messages.at(-1)!.parts.find((part) => part.type === 'tool-send_payment')).toMatchObject({
      state: 'approval-responded',
      approval: { approved: true },
    });
    expect(requests.map((request) => request.url().replace(server!.url, ''))).toEqual(['/', '/chat-client.js', '/api/chat', '/api/chat']);
    await page.close();
  });

  it('never pays a denied payment, shows the denial and the answer to it', async () => {
    const { page, requests } = await openChat();
    await send(page, 'Send 300 to Bob');

    await eventually(() => payment(page).getAttribute('data-state')).toBe('approval-requested');
    await payment(page).locator('button.deny').click();
    await eventually(() => payment(page).getAttribute('data-state')).toBe('output-denied');
    await eventually(() => page.locator('#status').getAttribute('data-state')).toBe('ready');

    expect(await payment(page).locator('.denied').textContent()).toBe('Denied: The user clicked Deny.');
    expect(await texts(page)).toEqual(['I will send 300 to Bob.', 'All right, I did not send the payment.']);
    expect(server!.ledger.payments.filter(({ to }) => to === 'Bob')).toEqual([]);
    const answered = chatBodies(requests)[1]!.messages.at(-1)!.parts.find((part) => part.type === 'tool-send_payment');
    expect(answered).toMatchObject({ state: 'approval-responded', approval: { approved: false, reason: 'The user clicked Deny.' } });

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('goes on with the same chat: a second payment waits again and its own answer settles it', async () => {
    const { page, requests } = await openChat();
    await send(page, 'Pay 60 to Dee');
    await eventually(() => payment(page).getAttribute('data-state')).toBe('approval-requested');
    await payment(page).locator('button.approve').click();
    await eventually(() => page.locator('#status').getAttribute('data-state')).toBe('ready');

    await send(page, 'Pay 70 to Dee');
    const second = payment(page).nth(1);
    await eventually(() => second.getAttribute('data-state')).toBe('approval-requested');
    await second.locator('button.deny').click();
    await eventually(() => second.getAttribute('data-state')).toBe('output-denied');
    await eventually(() => page.locator('#status').getAttribute('data-state')).toBe('ready');

    expect(await payment(page).first().getAttribute('data-state')).toBe('output-available');
    expect(await texts(page)).toEqual([
      'I will send 60 to Dee.',
      expect.stringMatching(/^Done: 60 went to Dee\./),
      'I will send 70 to Dee.',
      'All right, I did not send the payment.',
    ]);
    expect(server!.ledger.payments.filter(({ to }) => to === 'Dee')).toEqual([{ to: 'Dee', amount: 60 }]);
    // useChat sends the whole conversation each time; the agent takes only what is new.
    expect(chatBodies(requests).map(({ messages }) => messages.length)).toEqual([1, 2, 3, 4]);
    await page.close();
  });

  it('sends a payment its needsApproval lets through without asking', async () => {
    const { page, requests } = await openChat();
    await send(page, 'Pay 20 to Cy');

    await eventually(() => payment(page).getAttribute('data-state')).toBe('output-available');
    await eventually(() => page.locator('#status').getAttribute('data-state')).toBe('ready');
    expect(await payment(page).locator('button').count()).toBe(0);
    expect((await texts(page)).at(-1)).toMatch(/^Done: 20 went to Cy\./);
    expect(server!.ledger.payments.filter(({ to }) => to === 'Cy')).toEqual([{ to: 'Cy', amount: 20 }]);
    expect(chatBodies(requests)).toHaveLength(1);
    await page.close();
  });
});
