import { sendsInTheClear } from '../net/plain-http.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { functionOption } from '../core/function-option.js';

/** Request headers that carry a credential: `Authorization`, `x-api-key` (Anthropic), `x-goog-api-key` (Google), `api-key` (Azure), … */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|(^|-)(api-?key|auth-?token|access-?token|secret)$/i;
/** Query parameters that carry a credential (`?key=`, as Google's API takes one). */
const CREDENTIAL_PARAMETER = /^(key|api[-_]?key|access[-_]?token)$/i;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a body, dropped with it when a redirect turns a POST into a GET (as fetch does). */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export interface KeyGuardedFetchOptions {
  /** The fetch that sends each request. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Send a credential over plain http to a host that is not this machine (the CLI's `--allow-insecure-key`). Default false. */
  allowInsecureKey?: boolean;
  /** Same-origin redirects followed at most, as fetch's own limit. Default 20. */
  maxRedirects?: number;
}

/** A request that {@link keyGuardedFetch} refused to send, because it would have taken a credential where it must not go. */
export class KeyExposureError extends Error {
  override name = 'KeyExposureError';
}

/**
 * A `fetch` for AI SDK providers that keeps their API key on the server it was
 * meant for. `fetch` itself follows a redirect to any host and drops only
 * `Authorization` and cookies on the way, so `x-api-key` (Anthropic) or
 * `x-goog-api-key` (Google) would reach whatever host a server (or someone
 * between it and you, over plain http) redirects to. For a request that
 * carries a credential (one of those headers, `api-key`, `Authorization`, or a
 * `?key=` parameter) this `fetch`:
 *
 * - follows a redirect to the same origin (scheme, host and port) itself, up to `maxRedirects`;
 * - refuses a redirect to another origin with a {@link KeyExposureError} that names both;
 *   nothing is sent there (point the provider's `baseURL` at that server if it is the one to use);
 * - refuses to send it over plain `http` to a host that is not this machine
 *   (`localhost`, `127.x.x.x` and `[::1]` are fine), unless `allowInsecureKey`, wherever the URL came from:
 *   the provider's `baseURL`, an environment variable the provider reads itself (`OPENAI_BASE_URL`), or a redirect.
 *
 * A request without a credential is passed on as it is (a `Request` object
 * is read into memory first, so that its body may be sent again after a
 * 307). A body given as a stream cannot be sent again: a 307 or 308 for it
 * fails with a `KeyExposureError` saying so.
 *
 * @example
 * import { createAnthropic } from '@ai-sdk/anthropic';
 * import { jsonErrorAwareFetch, keyGuardedFetch } from 'loopchart/ai-sdk';
 *
 * const anthropic = createAnthropic({ apiKey, fetch: jsonErrorAwareFetch(keyGuardedFetch()) });
 */
export function keyGuardedFetch(options: KeyGuardedFetchOptions = {}): typeof fetch {
  parseOptions(
    'keyGuardedFetch',
    z.strictObject({ fetch: functionOption<typeof fetch>().optional(), allowInsecureKey: z.boolean().optional(), maxRedirects: z.number().int().nonnegative().optional() }),
    options,
  );
  const send: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const maxRedirects = options.maxRedirects ?? 20;
  return async (input, init) => {
    const request = input instanceof Request ? await readRequest(input, init) : { url: input instanceof URL ? input.href : input, init: init ?? {} };
    const credential = credentialIn(request.url, request.init.headers);
    // A Request's body has been read: what is sent on is what was read.
    if (credential === undefined) return input instanceof Request ? send(request.url, request.init) : send(input, init);
    if (!options.allowInsecureKey && sendsInTheClear(request.url)) {
      throw new KeyExposureError(`refused to send ${credential} over plain http to ${new URL(request.url).host}, another machine: it would cross the network unencrypted. Use https`);
    }
    if (request.init.redirect === 'manual' || request.init.redirect === 'error') return send(request.url, request.init);
    let { url, init: current } = request;
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, { ...current, redirect: 'manual' });
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      const from = new URL(url);
      const target = new URL(location, from);
      if (target.origin !== from.origin) {
        throw new KeyExposureError(
          `${from.origin} answered ${response.status} with a redirect to ${target.origin}, another origin: ${credential} is not sent there. If that server is the one to use, set the base URL to it`,
        );
      }
      if (redirects >= maxRedirects) throw new KeyExposureError(`${withoutQuery(url)}: more than ${maxRedirects} redirects`);
      current = afterRedirect(current, response.status, target.href);
      url = target.href;
    }
  };
}

/** What of the request is a credential, for messages (`the x-api-key header`); undefined when it carries none. */
export function credentialIn(url: string, headers: RequestInit['headers']): string | undefined {
  for (const [name, value] of new Headers(headers)) {
    if (CREDENTIAL_HEADER.test(name) && value.trim() !== '') return `the API key (the ${name} header)`;
  }
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') return 'the credentials in the URL';
  for (const [name, value] of parsed.searchParams) {
    if (CREDENTIAL_PARAMETER.test(name) && value !== '') return `the API key (the ${name}= parameter)`;
  }
  return undefined;
}

/** A URL for a message: its query left out, since a key may be one of its parameters (`?key=`). */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search === '' ? '' : '?…'}`;
}

/** The request to send to where a redirect points: a 303, or a 301/302 after a POST, becomes a GET without a body, as fetch does. */
function afterRedirect(init: RequestInit, status: number, target: string): RequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
    const headers = new Headers(init.headers);
    for (const name of BODY_HEADERS) headers.delete(name);
    return { ...init, method: 'GET', headers, body: null };
  }
  if (init.body instanceof ReadableStream || (typeof init.body === 'object' && init.body !== null && Symbol.asyncIterator in init.body)) {
    throw new KeyExposureError(`cannot follow the ${status} redirect to ${withoutQuery(target)}: the request's body is a stream, which cannot be sent twice`);
  }
  return init;
}

/** A `Request` (and what `init` overrides of it) as a URL and a replayable `RequestInit`. */
async function readRequest(input: Request, init: RequestInit | undefined): Promise<{ url: string; init: RequestInit }> {
  const request = new Request(input, init);
  return {
    url: request.url,
    init: {
      method: request.method,
      headers: request.headers,
      body: request.body === null ? null : await request.arrayBuffer(),
      signal: request.signal,
      redirect: request.redirect,
    },
  };
}
