import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { generateId, pipeAgentUIStreamToResponse } from 'ai';
import { readSessionView, type SessionStore } from 'loopchart';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { dbosSystemDatabaseUrl, pgControlChannel, sessionClient, type SessionClient } from 'loopchart/dbos';
import { sessionEventsKey } from 'loopchart/redis';
import { pgStore } from 'loopchart/postgres';
import pg from 'pg';
import { createClient } from 'redis';
import { userTurn, type RunMetadata } from '../chat-route.js';
import { isSessionId } from '../chat-sessions.js';
import { HttpError, readJsonObject, sendError, sendJson } from '../http-json.js';
import { memoryNotebook, notebookTools } from '../notebook-tools.js';
import { routeChatRequest } from '../server.js';
import { remoteSessionAgent } from './remote-session-agent.js';

/**
 * The web process of the scaled-out chat: the same page and endpoints as the
 * one-process server, but it runs no agent. A chat message becomes a session
 * turn on the workers' queue, the answer streams back from Redis (whichever
 * worker runs it), and approvals go to the turn that waits for them.
 */
export async function startScaledChatWeb(options: { databaseUrl: string; redisUrl: string; port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl });
  pool.on('error', () => undefined);
  const control = pgControlChannel(pool);
  const client = await DBOSClient.create({ systemDatabaseUrl: dbosSystemDatabaseUrl(options.databaseUrl) });
  const redis = connectRedis(options.redisUrl);
  await redis.connect();
  const context: WebContext = {
    store: pgStore(pool),
    sessions: sessionClient(client, { control }),
    redis,
    // The tools' definitions, for the UI stream; they run on the workers only.
    tools: notebookTools(memoryNotebook()),
  };
  const server = createServer((request, response) => {
    route(request, response, context).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else sendError(response, error instanceof HttpError ? error : new HttpError(500, error instanceof Error ? error.message : String(error)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await control.close();
      await client.destroy();
      await redis.quit();
      await pool.end();
    },
  };
}

type Redis = ReturnType<typeof connectRedis>;

function connectRedis(url: string) {
  const redis = createClient({ url });
  redis.on('error', () => undefined);
  return redis;
}

interface WebContext {
  store: SessionStore;
  sessions: SessionClient;
  redis: Redis;
  tools: ReturnType<typeof notebookTools>;
}

function route(request: IncomingMessage, response: ServerResponse, context: WebContext): Promise<void> {
  return routeChatRequest(request, response, {
    chat: (req, res) => chat(req, res, context),
    answer: (decision, sessionId, req, res) => answer(decision, sessionId, req, res, context),
    session: async (sessionId) => {
      const view = await readSessionView(context.store, sessionId);
      return view && { isRunning: view.isRunning, pendingApprovals: view.pendingApprovals.map((call) => call.toolCallId), messages: view.messages };
    },
  });
}

/** `POST /api/chat`: the message goes to the session's queue; the run streams back from Redis as a UI message stream. */
async function chat(request: IncomingMessage, response: ServerResponse, context: WebContext): Promise<void> {
  const { sessionId, messages } = await readJsonObject(request);
  if (!isSessionId(sessionId)) throw new HttpError(400, 'sessionId must be 1-128 letters, digits, dots, dashes or underscores, not starting with a dot.');
  const uiMessages = await userTurn(messages);
  const view = await readSessionView(context.store, sessionId);
  if (view?.isRunning) {
    const pendingApprovals = view.pendingApprovals.map((call) => call.toolCallId);
    const waiting = pendingApprovals.length > 0 ? `answer its pending approvals (${pendingApprovals.join(', ')})` : 'wait for it to end';
    throw new HttpError(409, `Session "${sessionId}" is in the middle of a run: ${waiting}.`, { pendingApprovals });
  }
  // Only what happens from now on: the stream's last entry before the message is sent.
  const [last] = (await context.redis.xRevRange(sessionEventsKey(sessionId), '+', '-', { COUNT: 1 })) ?? [];
  const reader = context.redis.duplicate();
  reader.on('error', () => undefined);
  await reader.connect();
  const agent = await remoteSessionAgent({ sessionId, store: context.store, sessions: context.sessions, reader, lastEventId: last?.id ?? '0', tools: context.tools });
  const disconnected = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) disconnected.abort();
  });
  try {
    await pipeAgentUIStreamToResponse({
      response,
      agent: toAISDKAgent(agent, { id: sessionId, approvals: 'in-stream' }),
      uiMessages,
      abortSignal: disconnected.signal,
      onError: (error) => (error instanceof Error ? error.message : String(error)),
      messageMetadata: ({ part }): RunMetadata | undefined => (part.type === 'finish' ? { outcome: (part as { outcome?: string }).outcome ?? '' } : undefined),
    });
  } finally {
    await agent.close();
  }
}

/** `POST /api/sessions/:id/approve|deny`: the answer goes to the turn that waits for it, on whichever worker. */
async function answer(decision: 'approve' | 'deny', sessionId: string, request: IncomingMessage, response: ServerResponse, context: WebContext): Promise<void> {
  const { toolCallId, reason } = await readJsonObject(request);
  if (typeof toolCallId !== 'string' || toolCallId === '') throw new HttpError(400, 'toolCallId (a non-empty string) is required.');
  if (reason !== undefined && typeof reason !== 'string') throw new HttpError(400, 'reason must be a string when given.');
  const view = await readSessionView(context.store, sessionId);
  if (!view) throw new HttpError(404, `Unknown session "${sessionId}": no chat has used it.`);
  const waiting = view.pendingApprovals.map((call) => call.toolCallId);
  if (!waiting.includes(toolCallId)) {
    throw new HttpError(404, `Tool call "${toolCallId}" is not waiting for approval (${waiting.length > 0 ? `waiting: ${waiting.join(', ')}` : 'none is'}).`, { pendingApprovals: waiting });
  }
  const input = decision === 'approve' ? { type: 'approve' as const, toolCallId } : { type: 'deny' as const, toolCallId, ...(reason !== undefined ? { reason } : {}) };
  await context.sessions.send(sessionId, input, generateId());
  const remaining = waiting.filter((id) => id !== toolCallId);
  sendJson(response, 200, { sessionId, toolCallId, answer: decision === 'approve' ? 'approved' : 'denied', pendingApprovals: remaining });
}
