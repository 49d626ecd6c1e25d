import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-json.js';

/** The names a request to this machine's loopback address may give as its Host. */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Refuses (403) what another website open in the user's browser could send this server:
 * - on a loopback address, a request whose `Host` is not a loopback name: a DNS-rebound site
 *   (evil.example resolving to 127.0.0.1) would otherwise read sessions as if it were the page;
 * - a `POST` whose `Origin` is not this server's own page: a cross-site form or `fetch` would
 *   otherwise start runs on the user's model (and their API key) or approve tool calls.
 * Programs that send no `Origin` (curl, tests) are served as before.
 */
export function assertSameOrigin(request: IncomingMessage): void {
  const host = request.headers.host ?? '';
  const hostname = host.replace(/:\d+$/, '');
  if (isLoopback(request.socket.localAddress) && !LOOPBACK_NAMES.has(hostname)) {
    throw new HttpError(403, `Host "${host.slice(0, 100)}" is not this machine's loopback address: open the chat from the URL the server printed.`);
  }
  const origin = request.headers.origin;
  // The host alone is compared: behind a proxy that keeps the Host, the page's own origin may be https.
  if (request.method === 'POST' && origin !== undefined && originHost(origin) !== host) {
    throw new HttpError(403, `A request from ${origin.slice(0, 100)} is not this server's page (${host}): the chat's endpoints answer only their own page.`);
  }
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined; // "null" (a sandboxed frame, a file: page) or garbage: no page of this server
  }
}

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}
