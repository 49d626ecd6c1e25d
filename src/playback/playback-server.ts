import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { listenOnLoopback } from '../net/listen-on-loopback.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { replaySession } from '../persistence/session-replay.js';
import { sessionIdProblem, sessionIdSchema } from '../persistence/session-id.js';
import type { SessionLog, SessionStore } from '../persistence/session-store.js';
import { parseForkRequest, ForkRequestError, type ForkRequest } from './fork-request.js';
import { forkWithEdit } from './fork-with-edit.js';
import { playbackData, type PlaybackData } from './playback-data.js';
import { PLAYBACK_SCRIPT } from './playback-script.js';
import { playbackPageHtml, preparePlaybackPage } from './playback-page.js';
import { contextAt } from '../time-travel/context-at.js';
import { openSessionRecord, type SessionRecordView } from '../time-travel/session-record.js';

export interface PlaybackServerOptions {
  store: SessionStore;
  /** The session the page opens first; its forks (and any other session of the store) open by id. */
  sessionId: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /**
   * Runs a fork the page made ("run on from here"), in the background: resolves once the run is
   * under way (its steps reach the store as it goes), rejects when it cannot start (no model, a bad
   * model spec) — the page is told why. Without it the page can fork but not run on.
   */
  runFork?: (forkId: string, request: ForkRequest) => Promise<void>;
  /**
   * How long the page waits for `runFork` to resolve or reject. Past it the page is told that the
   * fork is saved but whether it runs on is not known (a `runFork` that hangs, on a store or a
   * provider that does not answer, would otherwise keep the page's request open for ever).
   * @default 30_000
   */
  runForkTimeoutMs?: number;
}

/** How long the page waits for `runFork` by default. */
export const DEFAULT_RUN_FORK_TIMEOUT_MS = 30_000;

/** `startPlaybackServer`'s options, checked whole before the session is read: a misspelt one is refused, not ignored. */
const playbackServerOptionsSchema = z.strictObject({
  store: z.custom<SessionStore>((value) => typeof (value as Partial<SessionStore> | null)?.read === 'function', { message: 'expected a session store' }),
  // The page names it in every request, by the stores' rule: an id a store of one's own reads would start a page that refuses each request.
  sessionId: sessionIdSchema,
  port: z.number().int().min(0).max(65_535).optional(),
  runFork: functionOption<NonNullable<PlaybackServerOptions['runFork']>>().optional(),
  runForkTimeoutMs: timerMsSchema.optional(),
});

export interface PlaybackServer {
  /** Open this in a browser. It carries the server's token. */
  pageUrl: string;
  close(): Promise<void>;
}

/** What the page's requests get wrong, with the status it is answered with. */
class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 4_000_000;

interface LoadedSession {
  view: SessionRecordView;
  data: PlaybackData;
  /** `data` as JSON, written once per version. */
  json: string;
  /** When it was read (performance.now()). */
  readAt: number;
  /** The session's log, read when a point is first asked for (for its messages and context). */
  log?: Promise<SessionLog | undefined>;
}

/** A session read this recently is served as it is: the page's first requests and several open pages share one read. */
const FRESH_MS = 250;

const PAGE_SECURITY = {
  // Everything the page needs comes from this server; nothing from anywhere else, and no inline script.
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Whether the request's token is the server's; compared as bytes (a token of as many characters but more bytes is simply not it). */
function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const givenBytes = Buffer.from(given);
  const tokenBytes = Buffer.from(token);
  return givenBytes.length === tokenBytes.length && timingSafeEqual(givenBytes, tokenBytes);
}

/**
 * Serves the playback page of a stored session on 127.0.0.1: the page (`/`), its script
 * (`/page.js`), the session's playback data (`/api/session`, with an ETag the page polls to follow
 * a live run), the messages and the model's context at one point (`/api/point`), and forks
 * (`POST /api/fork`). Every request needs the server's random token (it is in `pageUrl`), and a
 * fork must come from the page's own origin, so no other site open in the browser can read a
 * session or start a run.
 *
 * @example
 * ```ts
 * import { createAgent, fileStore, runOnFork } from 'loopchart';
 * import { startPlaybackServer } from 'loopchart/report';
 *
 * const store = fileStore('.sessions');
 * const server = await startPlaybackServer({
 *   store,
 *   sessionId: 'chat-42',
 *   // Optional: without it the page forks but does not run on.
 *   runFork: async (forkId, request) => {
 *     const fork = createAgent({ model, tools, store, sessionId: forkId, ...(request.instructions !== undefined ? { instructions: request.instructions } : {}) });
 *     const { result } = await runOnFork(fork, request.prompt);
 *     void result.finally(() => fork.dispose());
 *   },
 * });
 * console.log(`open ${server.pageUrl}`);
 * // … later
 * await server.close();
 * ```
 * @throws (rejects) when the session is not in the store, or the port cannot be listened on (`EADDRINUSE`).
 */
export async function startPlaybackServer(options: PlaybackServerOptions): Promise<PlaybackServer> {
  parseOptions('startPlaybackServer', playbackServerOptionsSchema, options);
  const token = randomBytes(18).toString('base64url');
  let origin = '';
  const loaded = new Map<string, LoadedSession>();

  /** The session read at the start, served as it is to the first request for it (the page's first load). */
  let preloaded: string | undefined = options.sessionId;
  const load = async (sessionId: string, fresh = FRESH_MS): Promise<LoadedSession> => {
    const cached = loaded.get(sessionId);
    if (cached && preloaded === sessionId) {
      preloaded = undefined;
      return cached;
    }
    if (cached && performance.now() - cached.readAt < fresh) return cached;
    const readAt = performance.now();
    const view = await openSessionRecord(options.store, sessionId);
    if (!view) throw new RequestError(404, `there is no session "${sessionId}" in this store`);
    const data = playbackData(view);
    // Unchanged since the last read: keep what was derived from it (the log read for points).
    const session = cached?.data.version === data.version ? { ...cached, readAt } : { view, data, json: JSON.stringify(data), readAt };
    loaded.set(sessionId, session);
    return session;
  };

  const sessionParameter = (url: URL): string => {
    const sessionId = url.searchParams.get('session') ?? options.sessionId;
    const problem = sessionIdProblem(sessionId);
    if (problem !== undefined) throw new RequestError(400, `session: ${problem}`);
    return sessionId;
  };

  const integer = (url: URL, name: string): number => {
    const text = url.searchParams.get(name) ?? '';
    if (!/^\d+$/.test(text)) throw new RequestError(400, `${name}: expected a whole number, got "${text}"`);
    return Number(text);
  };

  /**
   * The forks made so far, by request id: a digest of the request (to tell a retry from another
   * request under the same id, without keeping its texts), its checkpoint and its answer. A request
   * sent again gets the first one's answer; another request under the same id is refused (409).
   */
  const forksByRequest = new Map<string, { digest: string; checkpoint: number; answer: Promise<{ sessionId: string; running: boolean; problem?: string }> }>();
  const makeFork = async (from: string, fork: ForkRequest): Promise<{ sessionId: string; running: boolean; problem?: string }> => {
    const { view } = await load(from, Infinity);
    const checkpoint = view.checkpoints.find((each) => each.id === fork.checkpoint);
    if (!checkpoint) throw new RequestError(400, `checkpoint: session ${from} has no checkpoint ${fork.checkpoint}`);
    // Just before a model call, the message joins the history that call sends; anywhere else the run steers with it.
    const beforeCall = fork.prompt !== undefined && checkpoint.state === 'running.llm.calling';
    if (options.runFork === undefined && (fork.prompt !== undefined || fork.instructions !== undefined || fork.model !== undefined)) {
      throw new RequestError(400, 'this page cannot run a fork: start loopchart open with --model to run on from here');
    }
    let sessionId: string;
    try {
      sessionId = await forkWithEdit(options.store, from, { ...fork, ...(beforeCall ? { append: fork.prompt } : {}) });
    } catch (error) {
      throw new RequestError(400, error instanceof Error ? error.message : String(error));
    }
    if (!options.runFork) return { sessionId, running: false };
    const { prompt: _sent, ...rest } = fork;
    const timeoutMs = options.runForkTimeoutMs ?? DEFAULT_RUN_FORK_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const undecided = new Promise<'undecided'>((resolve) => {
      // Unreferenced: a fork still undecided when the server closes must not hold the process open.
      timer = setTimeout(() => resolve('undecided'), timeoutMs).unref();
    });
    const runFork = options.runFork;
    try {
      // Called in a promise: a runFork that returns no promise (or throws at once) is taken as an async one would be.
      const running = Promise.resolve().then(() => runFork(sessionId, beforeCall ? rest : fork));
      const started = await Promise.race([running.then(() => 'started' as const), undecided]);
      if (started === 'started') return { sessionId, running: true };
      return {
        sessionId,
        running: false,
        problem: `runFork did not say within ${timeoutMs / 1000} s whether the run started (runForkTimeoutMs): the fork is saved, and may still run on; open it to see`,
      };
    } catch (error) {
      return { sessionId, running: false, problem: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', origin);
    if (!sameToken(url.searchParams.get('token'), token)) {
      throw new RequestError(403, 'This page needs the link with its token that loopchart open printed.');
    }
    const route = `${request.method} ${url.pathname}`;
    switch (route) {
      case 'GET /': {
        const sessionId = sessionParameter(url);
        send(response, 200, 'text/html; charset=utf-8', playbackPageHtml({ sessionId, scriptUrl: `/page.js?token=${token}`, canRun: options.runFork !== undefined }));
        return;
      }
      case 'GET /page.js':
        send(response, 200, 'text/javascript; charset=utf-8', PLAYBACK_SCRIPT);
        return;
      case 'GET /api/session': {
        const session = await load(sessionParameter(url));
        const { data } = session;
        const etag = `"${data.version}"`;
        if (request.headers['if-none-match'] === etag) {
          response.writeHead(304, { etag, ...PAGE_SECURITY });
          response.end();
          return;
        }
        send(response, 200, 'application/json; charset=utf-8', session.json, { etag });
        return;
      }
      case 'GET /api/point': {
        const sessionId = sessionParameter(url);
        const session = await load(sessionId, Infinity);
        // A read that failed is not kept: the next point asks the store again (it may have been a moment's outage).
        const log = await (session.log ??= options.store.read(sessionId).catch((error: unknown) => {
          session.log = undefined;
          throw error;
        }));
        if (!log) throw new RequestError(404, `there is no session "${sessionId}" in this store`);
        sendJson(response, 200, pointDetails(session, log, integer(url, 'frame')));
        return;
      }
      case 'POST /api/fork': {
        if (request.headers.origin !== origin) throw new RequestError(403, 'a fork must come from the playback page itself');
        if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) throw new RequestError(415, 'send the fork request as application/json');
        const from = sessionParameter(url);
        let fork: ForkRequest;
        try {
          fork = parseForkRequest(await readJson(request));
        } catch (error) {
          if (error instanceof ForkRequestError) throw new RequestError(400, error.message);
          throw error;
        }
        const key = fork.requestId !== undefined ? `${from}\n${fork.requestId}` : undefined;
        const sent = createHash('sha256').update(JSON.stringify(fork)).digest('base64url');
        const earlier = key !== undefined ? forksByRequest.get(key) : undefined;
        if (earlier !== undefined && earlier.digest !== sent) {
          throw new RequestError(409, `requestId: ${JSON.stringify(fork.requestId)} was sent before with another fork request (from checkpoint ${earlier.checkpoint}): a retry sends the same request; give each new request an id of its own`);
        }
        let answer = earlier?.answer;
        if (answer === undefined) {
          answer = makeFork(from, fork);
          if (key !== undefined) forksByRequest.set(key, { digest: sent, checkpoint: fork.checkpoint, answer });
        }
        sendJson(response, 200, await answer);
        return;
      }
      default:
        throw new RequestError(404, `no ${route} here`);
    }
  };

  // Read before listening: a session that is not there is said at once, and the page's first request finds it read.
  preparePlaybackPage();
  await load(options.sessionId).catch((error: unknown) => {
    throw error instanceof RequestError ? new Error(error.message) : error;
  });
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return response.destroy();
      const status = error instanceof RequestError ? error.status : 500;
      sendJson(response, status, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  const port = await listenOnLoopback(http, options.port);
  origin = `http://127.0.0.1:${port}`;
  return {
    pageUrl: `${origin}/?token=${token}&session=${encodeURIComponent(options.sessionId)}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The messages stored as of the frame's checkpoint and the context the model saw at the frame. */
function pointDetails(session: LoadedSession, log: SessionLog, frameIndex: number): { frame: number; checkpoint?: number; messages: ModelMessage[]; context: ModelMessage[] } {
  const frame = session.data.frames[frameIndex];
  if (frame === undefined) throw new RequestError(400, `frame: the session has ${session.data.frames.length} frames, there is no frame ${frameIndex}`);
  const messages = frame.forkCheckpoint !== undefined ? replaySession(log.records, frame.forkCheckpoint).messages : [];
  return {
    frame: frameIndex,
    ...(frame.forkCheckpoint !== undefined ? { checkpoint: frame.forkCheckpoint } : {}),
    messages,
    context: contextAt(log, session.view, frame.run, frame.point),
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RequestError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestError(400, 'the request body is not JSON');
  }
}

function send(response: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...PAGE_SECURITY, ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
}
