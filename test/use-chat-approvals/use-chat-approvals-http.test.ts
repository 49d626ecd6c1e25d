import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModel } from '../../examples/use-chat-approvals/demo-model.js';
import { startPaymentChatServer, type PaymentChatServer } from '../../examples/use-chat-approvals/server.js';

let server: PaymentChatServer;

beforeAll(async () => {
  server = await startPaymentChatServer({ createModel: () => demoModel({ chunkDelayMs: 0 }) });
});

afterAll(async () => {
  await server.close();
});

const userMessage = (text: string) => ({ id: `user-${text.length}`, role: 'user', parts: [{ type: 'text', text }] });

function postChat(body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('the payments chat over HTTP', () => {
  it('serves the page and its script from the server itself', async () => {
    const page = await fetch(server.url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/chat-client.js">');
    expect(html).not.toMatch(/https?:\/\//);

    const script = await fetch(`${server.url}/chat-client.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('addToolApprovalResponse');
  });

  it('refuses a POST from another website (its Origin): it could start a payment run or answer its approval', async () => {
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: JSON.stringify({ id: 'cross-site', messages: [userMessage('Pay 500 to Mallory')] }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: string }).error).toMatch(/https:\/\/evil\.example.*not this server's page/);
    expect(server.ledger.payments).toEqual([]);
  });

  it('refuses a chat id that is not one', async () => {
    const response = await postChat({ id: '../etc', messages: [userMessage('Pay 5 to Ada')] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/^id \(the chat id useChat sends\) must be/);
  });

  it('refuses messages that are not UI messages', async () => {
    const response = await postChat({ id: 'chat-1', messages: [{ role: 'user', content: 'Pay 5 to Ada' }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/^messages must be a non-empty array of AI SDK UI messages/);
  });

  it('refuses a conversation that ends with neither a prompt nor answered approvals', async () => {
    const assistant = { id: 'assistant-1', role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] };
    const response = await postChat({ id: 'chat-2', messages: [userMessage('Pay 5 to Ada'), assistant] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe(
      'The last message must be a user message with text, or an assistant message whose approval requests are all answered.',
    );
  });

  it('ends the stream at the approval request, and refuses a new prompt while the payment waits', async () => {
    const first = await postChat({ id: 'chat-3', messages: [userMessage('Pay 400 to Ada')] });
    expect(first.status).toBe(200);
    const events = (await first.text()).split('\n\n').filter((event) => event.startsWith('data: {'));
    const chunks = events.map((event) => JSON.parse(event.slice('data: '.length)) as { type: string; finishReason?: string });
    expect(chunks.find((chunk) => chunk.type === 'tool-approval-request')).toMatchObject({ toolCallId: 'call-1' });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });

    const second = await postChat({ id: 'chat-3', messages: [userMessage('Pay 400 to Ada'), userMessage('Pay 1 to Bo')] });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: 'Chat "chat-3" is in the middle of a run: answer its pending approvals (call-1).',
      pendingApprovals: ['call-1'],
    });
    expect(server.ledger.payments).toEqual([]);
  });

  it('answers a wrong method and an unknown path with their statuses', async () => {
    expect((await fetch(`${server.url}/api/chat`)).status).toBe(405);
    expect((await fetch(`${server.url}/nothing`)).status).toBe(404);
  });
});
