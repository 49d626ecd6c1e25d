import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAgent } from 'loopchart';
import { ChatSessions } from '../chat-server/chat-sessions.js';
import { HttpError, sendError } from '../chat-server/http-json.js';
import { modelFactoryFor, type ModelFactory } from '../chat-server/model-choice.js';
import { assertSameOrigin } from '../chat-server/same-origin.js';
import { handlePaymentChat } from './chat-route.js';
import { bundleChatClient } from './client-bundle.js';
import { demoModel } from './demo-model.js';
import { paymentAgentOptions } from './payment-agent.js';
import { Ledger } from './payment-tools.js';

export interface PaymentChatServerOptions {
  /** Default 0: any free port. */
  port?: number;
  host?: string;
  /** The model of each new chat. Default: the offline demo model. */
  createModel?: ModelFactory;
  /** The account the payments come from. Default: a new one with 1000 in it. */
  ledger?: Ledger;
}

export interface PaymentChatServer {
  url: string;
  /** What the agents really paid. */
  ledger: Ledger;
  /** Aborts the runs still going (a call waiting for approval among them) and stops the server. */
  close(): Promise<void>;
}

const page = readFileSync(new URL('./page.html', import.meta.url));

/**
 * The payments chat: the page, its script (bundled from page-client.ts when
 * the server starts) and `POST /api/chat`, one agent per chat id.
 */
export async function startPaymentChatServer({
  port = 0,
  host = '127.0.0.1',
  createModel = () => demoModel(),
  ledger = new Ledger(),
}: PaymentChatServerOptions = {}): Promise<PaymentChatServer> {
  const script = Buffer.from(await bundleChatClient());
  const chats = new ChatSessions((chatId) => createAgent(paymentAgentOptions(createModel(chatId), ledger)));
  const server = createServer((request, response) => {
    route(request, response, { script, chats }).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else sendError(response, error instanceof HttpError ? error : new HttpError(500, error instanceof Error ? error.message : String(error)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    ledger,
    async close() {
      await chats.abortAll('the chat server is closing');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function route(request: IncomingMessage, response: ServerResponse, { script, chats }: { script: Buffer; chats: ChatSessions }): Promise<void> {
  assertSameOrigin(request);
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  if (pathname === '/') return sendStatic(response, method, 'text/html; charset=utf-8', page);
  if (pathname === '/chat-client.js') return sendStatic(response, method, 'text/javascript; charset=utf-8', script);
  if (pathname === '/api/chat') {
    if (method !== 'POST') throw new HttpError(405, `Use POST here, not ${method}.`);
    return handlePaymentChat(request, response, chats);
  }
  throw new HttpError(404, `Nothing at ${method} ${pathname}.`);
}

function sendStatic(response: ServerResponse, method: string, contentType: string, body: Buffer): void {
  if (method !== 'GET') throw new HttpError(405, `Use GET here, not ${method}.`);
  response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  response.end(body);
}

function isRunDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      model: { type: 'string', default: 'demo' },
    },
  });
  const server = await startPaymentChatServer({
    port: Number(values.port),
    host: values.host,
    createModel: values.model === 'demo' ? () => demoModel() : await modelFactoryFor(values.model),
  });
  console.log(`loopchart payments chat (${values.model} model) at ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (isRunDirectly()) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
