import { randomBytes, timingSafeEqual } from 'node:crypto';
import { listenOnLoopback } from '../net/listen-on-loopback.js';
import { createServer, type IncomingMessage } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { timerMsSchema } from '../core/max-timer-ms.js';
import { backReferenceResolverSource } from './back-references.js';
import { BATCH_FRAMES_PARAMETER, BATCH_HEADER, REFERRING_BATCH_HEADER, standaloneEventTexts } from './inspection-frame.js';
import { DEFAULT_REPLAY_BYTES, RecentFrames } from './recent-frames.js';

/** The largest frame a client may send by default: 100 MiB (as `ws` has it). */
export const DEFAULT_MAX_FRAME_BYTES = 100 * 2 ** 20;

export interface InspectorRelayOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** The Stately inspector page the relay page embeds. Default `https://stately.ai/inspect`. */
  inspectorUrl?: string;
  /** About how many recent events a late-connecting page gets (whole frames: the oldest may add a few). Default 1000. */
  replay?: number;
  /** At most how many bytes of recent frames are kept for a late-connecting page. Default 32 MiB. */
  replayBytes?: number;
  /** The largest frame a client may send; a larger one closes that client (1009). Default 100 MiB. */
  maxFrameBytes?: number;
  /** How long the page waits for the embedded inspector before it reports it unavailable. Default 15 s. */
  inspectorLoadTimeoutMs?: number;
  /**
   * The most the relay holds unsent for one page or receiver that reads slower than the run sends
   * (a hung or suspended tab): past it that client is disconnected (`onClientClosed` says so)
   * rather than the run's process holding every event for it. Default 64 MiB.
   */
  maxBufferedBytes?: number;
}

/**
 * `startInspectorRelay`'s options, checked whole before it listens: a misspelt one is refused, not
 * ignored, and so is a value it could not keep (a `maxBufferedBytes` of NaN would disconnect every
 * page at its first frame, a load timeout past 2^31-1 ms would fire at once, an `inspectorUrl`
 * that is not an http(s) URL would break the page it is written into).
 */
const relayOptionsSchema = z.strictObject({
  port: z.number().int().min(0).max(65_535).optional(),
  // As the URL parser writes it: a quote or an angle bracket percent-encoded, so it cannot end the attribute or the script it is written into.
  inspectorUrl: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .transform((url) => new URL(url).href)
    .optional(),
  replay: z.number().int().nonnegative().optional(),
  replayBytes: z.number().int().positive().optional(),
  maxFrameBytes: z.number().int().positive().optional(),
  inspectorLoadTimeoutMs: timerMsSchema.optional(),
  maxBufferedBytes: z.number().int().positive().optional(),
});

/** What the relay holds unsent for one slow client by default: 64 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 2 ** 20;

export interface InspectorRelay {
  /** Open this in a browser: it embeds the Stately inspector and feeds it the agent's events. It carries the relay's token. */
  pageUrl: string;
  /**
   * Give this to `createWebSocketInspector({ url })`. It carries the relay's token, and says
   * (`frames=references`) that the relay reads many events in one frame, which may refer back to
   * earlier events of the frame.
   */
  webSocketUrl: string;
  /** Resolves once a page opened from `pageUrl` is connected (at once if one is), or rejects when `signal` aborts. */
  viewerConnected(signal?: AbortSignal): Promise<void>;
  /**
   * Called when an open page reports that the Stately inspector it embeds did not load (no network,
   * or a blocked page), with the reason. Replaces any earlier listener.
   */
  onInspectorUnavailable(listener: (reason: string) => void): void;
  /**
   * Called when the relay closed a client because of what it sent (a text frame that is not
   * UTF-8, a binary frame, a frame over `maxFrameBytes`), because it read too slowly (`maxBufferedBytes`) or
   * because its connection failed, with what happened.
   * The relay and its other clients go on. Replaces any earlier listener.
   */
  onClientClosed(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

/** What the page sends back about itself (never relayed to other clients). */
const PAGE_STATUS = '@loopchart.page';

function bridgePage(webSocketUrl: string, inspectorUrl: string, timeoutMs: number): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>loopchart · Stately inspector</title>
<style>html,body,iframe{margin:0;width:100%;height:100%;border:0}#offline{display:none;font:16px system-ui;padding:2em}</style></head>
<body><p id="offline"></p><iframe id="inspector" src="${inspectorUrl}"></iframe>
<script>
const frame = document.getElementById('inspector');
const waiting = [];
let ready = false;
const socket = new WebSocket(${JSON.stringify(webSocketUrl)});
const status = (state, reason) => socket.readyState === 1 && socket.send(JSON.stringify({ type: ${JSON.stringify(PAGE_STATUS)}, state, reason }));
socket.onopen = () => status('connected');
addEventListener('message', (event) => {
  if (event.source === frame.contentWindow && event.data && event.data.type === '@statelyai.connected') {
    ready = true;
    waiting.splice(0).forEach((data) => frame.contentWindow.postMessage(data, '*'));
  }
});
setTimeout(() => {
  if (ready) return;
  const reason = 'the Stately inspector (' + ${JSON.stringify(inspectorUrl)} + ') did not load within ${Math.round(timeoutMs / 1000)} s: it needs a network connection';
  const note = document.getElementById('offline');
  note.textContent = reason + '. The run goes on; its trace (--trace, --report) shows the same states offline.';
  note.style.display = 'block';
  status('inspector-unavailable', reason);
}, ${timeoutMs});
const BATCH = ${JSON.stringify(`${BATCH_HEADER}
`)};
const REFERRING_BATCH = ${JSON.stringify(`${REFERRING_BATCH_HEADER}
`)};
${backReferenceResolverSource()}
socket.onmessage = (event) => {
  const header = [BATCH, REFERRING_BATCH].find((candidate) => event.data.startsWith(candidate));
  let events;
  try {
    events = (header ? event.data.slice(header.length).split('\\n') : [event.data]).map((text) => JSON.parse(text));
  } catch (error) {
    console.error('loopchart: a frame that is not JSON was dropped', error);
    return;
  }
  for (const data of header === REFERRING_BATCH ? resolveFrameReferences(events) : events) {
    if (ready) frame.contentWindow.postMessage(data, '*');
    else waiting.push(data);
  }
};
</script></body></html>`;
}

function sameToken(given: string | null, token: string): boolean {
  if (given === null || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

/**
 * A local relay between an agent's WebSocket inspector and the Stately
 * inspector in a browser. Inspection events carry the run's data (prompts,
 * file contents, tool output) and are nobody else's business, so:
 * - it listens on 127.0.0.1 only;
 * - every page request and WebSocket connection must carry the relay's
 *   random per-run token (it is in `pageUrl` and `webSocketUrl`);
 * - a WebSocket connection from a browser must come from the relay's own
 *   page (its `Origin`), so another website open in the same browser can
 *   neither read the events nor inject any, even if it guessed the port.
 * Connections without an `Origin` (programs, like the agent's inspector) need
 * the token only. It replays recent events to a page that connects late. A
 * client that sends a text frame that is not UTF-8, a binary frame or a frame over
 * `maxFrameBytes` is closed (1007, 1003, 1009), and only that client.
 * Inspectors may send many events in one frame (`inspection-frame.ts`): the
 * page gets such frames whole, any other client one event per frame, as
 * `@statelyai/inspect`'s receivers expect.
 *
 * @example
 * ```ts
 * const relay = await startInspectorRelay();
 * const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
 * console.log(`open ${relay.pageUrl}`);
 * ```
 * @throws (rejects) when the port cannot be listened on, e.g. `EADDRINUSE`.
 */
export async function startInspectorRelay(options: InspectorRelayOptions = {}): Promise<InspectorRelay> {
  const { inspectorUrl = 'https://stately.ai/inspect' } = parseOptions('startInspectorRelay', relayOptionsSchema, options);
  const replay = options.replay ?? 1000;
  const token = randomBytes(18).toString('base64url');
  const recent = new RecentFrames(replay, options.replayBytes ?? DEFAULT_REPLAY_BYTES);
  let origin = '';
  /** Where the page connects: the token only (the page reads every frame it gets). */
  let pageSocketUrl = '';
  const viewers = new Set<WebSocket>();
  const viewerWaiters = new Set<() => void>();
  let unavailable: ((reason: string) => void) | undefined;
  let clientClosed: ((reason: string) => void) | undefined;

  const tokenOf = (request: IncomingMessage) => new URL(request.url ?? '/', origin).searchParams.get('token');
  const http = createServer((request, response) => {
    if (!sameToken(tokenOf(request), token)) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('This inspector page needs the link with its token that loopchart printed.');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    response.end(bridgePage(pageSocketUrl, inspectorUrl, options.inspectorLoadTimeoutMs ?? 15_000));
  });
  const port = await listenOnLoopback(http, options.port);
  origin = `http://127.0.0.1:${port}`;
  pageSocketUrl = `ws://127.0.0.1:${port}/?token=${token}`;

  // Created once listening: an attached WebSocketServer re-emits the HTTP server's errors, and a listen error must reject, not crash.
  const sockets = new WebSocketServer({
    server: http,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    verifyClient: ({ req, origin: requestOrigin }: { req: IncomingMessage; origin: string | undefined }) =>
      sameToken(tokenOf(req), token) && (requestOrigin === undefined || requestOrigin === origin),
  });
  sockets.on('error', () => undefined);
  const pages = new WeakSet<WebSocket>();
  /** Clients that send events: inspectors, which read none. */
  const inspectors = new WeakSet<WebSocket>();
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  /** Whether a client takes what it is sent; one that holds more than `maxBufferedBytes` unread is disconnected. */
  const keepsUp = (client: WebSocket): boolean => {
    const unread = client.bufferedAmount;
    if (unread <= maxBufferedBytes) return true;
    viewers.delete(client);
    client.terminate();
    clientClosed?.(`a ${pages.has(client) ? 'page' : 'client'} was disconnected: it had not read ${(unread / 2 ** 20).toFixed(1)} MiB of events (maxBufferedBytes)`);
    return false;
  };
  // A page reads batch frames: it gets each frame as received, undecoded. Any other client (a
  // Stately receiver) gets one event per frame, back-references resolved.
  const deliver = (client: WebSocket, frame: Buffer, eventTexts: () => string[]) => {
    if (pages.has(client)) client.send(frame, { binary: false });
    else if (!inspectors.has(client)) for (const text of eventTexts()) client.send(text);
  };
  sockets.on('connection', (socket, request) => {
    const fromPage = request.headers.origin === origin;
    if (fromPage) pages.add(socket);
    // A frame that is not UTF-8 text, a frame over maxPayload or a failed connection: ws has already
    // started closing this one socket (1007, 1009, 1002 as the error calls for, or at once); the error
    // only needs a listener, or it would be thrown and end the process.
    socket.on('error', (error) => clientClosed?.(`a ${fromPage ? 'page' : 'client'} was disconnected: ${error.message}`));
    for (const frame of recent.frames()) deliver(socket, frame, () => standaloneEventTexts(frame.toString()));
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary && !fromPage) {
        // Inspection events are JSON text; passed on as text, bytes that are not UTF-8 would make the page's socket fail.
        socket.close(1003, 'inspection events are text frames');
        clientClosed?.('a client was disconnected: it sent a binary frame (inspection events are JSON text frames)');
        return;
      }
      if (fromPage) {
        // The page only reports on itself; it never feeds the run's events.
        const status = parseStatus(data.toString());
        if (status?.state === 'connected') {
          viewers.add(socket);
          for (const wake of [...viewerWaiters]) wake();
        } else if (status?.state === 'inspector-unavailable') {
          unavailable?.(status.reason ?? 'the Stately inspector did not load');
        }
        return;
      }
      inspectors.add(socket);
      recent.add(data);
      let texts: string[] | undefined;
      const eventTexts = () => (texts ??= standaloneEventTexts(data.toString()));
      for (const client of sockets.clients) if (client !== socket && client.readyState === WebSocket.OPEN && keepsUp(client)) deliver(client, data, eventTexts);
    });
    socket.on('close', () => viewers.delete(socket));
  });

  return {
    pageUrl: `${origin}/?token=${token}`,
    webSocketUrl: `${pageSocketUrl}&${BATCH_FRAMES_PARAMETER}=references`,
    viewerConnected(signal?: AbortSignal) {
      if (viewers.size > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          viewerWaiters.delete(done);
          signal?.removeEventListener('abort', aborted);
          resolve();
        };
        const aborted = () => {
          viewerWaiters.delete(done);
          reject(signal?.reason instanceof Error ? signal.reason : new Error('stopped waiting for the inspector page'));
        };
        if (signal?.aborted) return aborted();
        viewerWaiters.add(done);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    },
    onInspectorUnavailable(listener) {
      unavailable = listener;
    },
    onClientClosed(listener) {
      clientClosed = listener;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close(() => http.close(() => resolve()));
      }),
  };
}

function parseStatus(message: string): { state?: string; reason?: string } | undefined {
  try {
    const value = JSON.parse(message) as { type?: unknown; state?: unknown; reason?: unknown };
    if (value.type !== PAGE_STATUS) return undefined;
    return {
      ...(typeof value.state === 'string' ? { state: value.state } : {}),
      ...(typeof value.reason === 'string' ? { reason: value.reason } : {}),
    };
  } catch {
    return undefined;
  }
}
