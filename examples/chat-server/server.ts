import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAgent, fileStore } from 'loopchart';
import { handleApproval } from './approval-route.js';
import { handleChat } from './chat-route.js';
import { ChatSessions, isSessionId } from './chat-sessions.js';
import { HttpError, sendError, sendJson } from './http-json.js';
import { assertSameOrigin } from './same-origin.js';
import { demoModel } from './demo-model.js';
import { modelFactoryFor, type ModelFactory } from './model-choice.js';
import { memoryNotebook } from './notebook-tools.js';
import { chatAgentOptions } from './chat-agent.js';

export interface ChatServerOptions {
  /** Default 0: any free port. */
  port?: number;
  host?: string;
  /** The model of each new session. Default: the offline demo model. */
  createModel?: ModelFactory;
  /** Where `fileStore` keeps the sessions. Default: a new temporary directory. */
  sessionsDir?: string;
}

export interface ChatServer {
  url: string;
  sessionsDir: string;
  /** Aborts the runs still streaming and stops the server. */
  close(): Promise<void>;
}

const page = readFileSync(new URL('./page.html', import.meta.url));

export async function startChatServer({
  port = 0,
  host = '127.0.0.1',
  createModel = () => demoModel(),
  sessionsDir = mkdtempSync(path.join(tmpdir(), 'loopchart-chat-')),
}: ChatServerOptions = {}): Promise<ChatServer> {
  const store = fileStore(sessionsDir);
  const notebook = memoryNotebook();
  const sessions = new ChatSessions((sessionId) =>
    createAgent({ ...chatAgentOptions(createModel(sessionId), notebook), store, sessionId }),
  );
  const server = createServer((request, response) => {
    route(request, response, sessions).catch((error: unknown) => {
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
    sessionsDir,
    async close() {
      await sessions.abortAll('the chat server is closing');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** What differs between the one-process server and the scaled-out web process; the routes are the same. */
export interface ChatEndpoints {
  chat(request: IncomingMessage, response: ServerResponse): Promise<void>;
  answer(decision: 'approve' | 'deny', sessionId: string, request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The session as `GET /api/sessions/:id` shows it; undefined for an unknown one. */
  session(sessionId: string): Promise<{ isRunning: boolean; pendingApprovals: string[]; messages: unknown[] } | undefined>;
}

/** The chat's routes: the page, `POST /api/chat`, the approval endpoints and `GET /api/sessions/:id`. */
export async function routeChatRequest(request: IncomingMessage, response: ServerResponse, endpoints: ChatEndpoints): Promise<void> {
  assertSameOrigin(request);
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  if (pathname === '/') {
    allow(method, 'GET');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
    response.end(page);
    return;
  }
  if (pathname === '/api/chat') {
    allow(method, 'POST');
    return endpoints.chat(request, response);
  }
  const approval = /^\/api\/sessions\/([^/]+)\/(approve|deny)$/.exec(pathname);
  if (approval) {
    allow(method, 'POST');
    return endpoints.answer(approval[2] as 'approve' | 'deny', sessionIdFrom(approval[1]!), request, response);
  }
  const session = /^\/api\/sessions\/([^/]+)$/.exec(pathname);
  if (session) {
    allow(method, 'GET');
    const sessionId = sessionIdFrom(session[1]!);
    const view = await endpoints.session(sessionId);
    if (!view) throw new HttpError(404, `Unknown session "${sessionId}": no chat on this server has used it.`);
    sendJson(response, 200, { sessionId, ...view });
    return;
  }
  throw new HttpError(404, `Nothing at ${method} ${pathname}.`);
}

function route(request: IncomingMessage, response: ServerResponse, sessions: ChatSessions): Promise<void> {
  return routeChatRequest(request, response, {
    chat: (req, res) => handleChat(req, res, sessions),
    answer: (decision, sessionId, req, res) => handleApproval(decision, sessionId, req, res, sessions),
    session: async (sessionId) => {
      const agent = await sessions.find(sessionId);
      return agent && { isRunning: agent.isRunning, pendingApprovals: agent.pendingApprovals, messages: agent.messages };
    },
  });
}

function allow(method: string, expected: string): void {
  if (method !== expected) throw new HttpError(405, `Use ${expected} here, not ${method}.`);
}

function sessionIdFrom(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'The session id in the path is not valid percent-encoding.');
  }
  if (!isSessionId(decoded)) throw new HttpError(404, `Unknown session "${segment}": not a valid session id.`);
  return decoded;
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
      sessions: { type: 'string' },
    },
  });
  const server = await startChatServer({
    port: Number(values.port),
    host: values.host,
    createModel: await modelFactoryFor(values.model),
    ...(values.sessions ? { sessionsDir: path.resolve(values.sessions) } : {}),
  });
  console.log(`loopchart chat server (${values.model} model) at ${server.url}`);
  console.log(`sessions in ${server.sessionsDir}`);
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
