import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export interface InspectorRelayOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** The Stately inspector page the relay page embeds. Default `https://stately.ai/inspect`. */
  inspectorUrl?: string;
  /** How many recent events a late-connecting page gets. Default 1000. */
  replay?: number;
}

export interface InspectorRelay {
  /** Open this in a browser: it embeds the Stately inspector and feeds it the agent's events. */
  pageUrl: string;
  /** Give this to `createWebSocketInspector({ url })`. */
  webSocketUrl: string;
  close(): Promise<void>;
}

function bridgePage(webSocketUrl: string, inspectorUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>loopchart · Stately inspector</title>
<style>html,body,iframe{margin:0;width:100%;height:100%;border:0}</style></head>
<body><iframe id="inspector" src="${inspectorUrl}"></iframe>
<script>
const frame = document.getElementById('inspector');
const waiting = [];
let ready = false;
addEventListener('message', (event) => {
  if (event.data && event.data.type === '@statelyai.connected') {
    ready = true;
    waiting.splice(0).forEach((data) => frame.contentWindow.postMessage(data, '*'));
  }
});
const socket = new WebSocket(${JSON.stringify(webSocketUrl)});
socket.onmessage = (event) => {
  const data = JSON.parse(event.data);
  if (ready) frame.contentWindow.postMessage(data, '*');
  else waiting.push(data);
};
</script></body></html>`;
}

/**
 * A local relay between an agent's WebSocket inspector and the Stately
 * inspector in a browser. It listens on 127.0.0.1 only — inspection events
 * carry the run's data and are nobody else's business — and replays recent
 * events to a page that connects late.
 *
 * @example
 * ```ts
 * const relay = await startInspectorRelay();
 * const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
 * ```
 */
export async function startInspectorRelay(options: InspectorRelayOptions = {}): Promise<InspectorRelay> {
  const inspectorUrl = options.inspectorUrl ?? 'https://stately.ai/inspect';
  const replay = options.replay ?? 1000;
  const recent: string[] = [];
  let webSocketUrl = '';
  const http = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(bridgePage(webSocketUrl, inspectorUrl));
  });
  const sockets = new WebSocketServer({ server: http });
  sockets.on('connection', (socket) => {
    for (const message of recent) socket.send(message);
    socket.on('message', (data: Buffer) => {
      const message = data.toString();
      recent.push(message);
      if (recent.length > replay) recent.shift();
      for (const client of sockets.clients) if (client !== socket && client.readyState === WebSocket.OPEN) client.send(message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  webSocketUrl = `ws://127.0.0.1:${port}`;
  return {
    pageUrl: `http://127.0.0.1:${port}`,
    webSocketUrl,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close(() => http.close(() => resolve()));
      }),
  };
}
