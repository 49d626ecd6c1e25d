import { isStreamingRequest } from './streaming-request.js';

/**
 * Some OpenAI-compatible servers answer a streaming request with HTTP 200 and
 * a JSON error document instead of an event stream
 * (`{"error":{"message":"…","code":…}}`). `@ai-sdk/openai` reads no event from
 * it and reports the stream as `interrupted`, so the server's message is lost.
 * This `fetch` turns such an answer into the HTTP error it means (the status
 * from the error's `code` or `status` when it is one, else 502), so the
 * provider reports it as an `APICallError` with the server's message and
 * loopchart classifies and retries it by that status.
 *
 * Any other JSON document (a server that ignores `"stream": true`) or an HTML
 * page (a login page, a base URL that is a web app's) in a 200 answer to a
 * streaming request becomes a 502 whose message names the content type and
 * the start of the body. Only the first MiB of such a body is read, the rest
 * cancelled (a page may never end). So is an error response's body (status 400
 * or more), which the provider reads whole into its error's message: a
 * compressed body of 100 KB can unpack to gigabytes.
 *
 * @example
 * const provider = createOpenAI({ baseURL, apiKey, fetch: jsonErrorAwareFetch() });
 */
export function jsonErrorAwareFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status >= 400 && response.body !== null) return await withBodyCut(response);
    const contentType = response.headers.get('content-type') ?? '';
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    // One JSON document, not a stream of them: application/x-ndjson (Ollama's chat), jsonl or json-seq are events of their own.
    const json = mediaType === 'application/json' || mediaType.endsWith('+json');
    if (response.status !== 200 || !(json || mediaType === 'text/html') || !isStreamingRequest(input, init)) return response;
    const { text, whole } = await readStart(response, MAX_READ_BYTES);
    const status = json && whole ? errorStatusOf(text) : undefined;
    // The provider's message for a body it cannot read as its error document is the status text: it says what came instead of events.
    const statusText = status ? 'error document in a 200 response' : notAnEventStream(contentType, text);
    return new Response(text, { status: status ?? 502, statusText, headers: response.headers });
  };
}

/** The most of a 200 answer that is not events read to say what it was: an error document is far smaller, and a page may never end. */
const MAX_READ_BYTES = 1024 * 1024;

/** Up to `maxBytes` of a body, as text, the rest cancelled; `whole` when that was all of it. */
async function readStart(response: Response, maxBytes: number): Promise<{ text: string; whole: boolean }> {
  if (response.body === null) return { text: '', whole: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), whole: true };
    read += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (read > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { text: text + decoder.decode(), whole: false };
    }
  }
}

/** What a 200 answer that is neither events nor an error document was: its content type and the start of its body, as a valid status text. */
function notAnEventStream(contentType: string, body: string): string {
  const type = contentType.split(';')[0]!.trim();
  const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, 200).replace(/[^\x20-\x7e]/g, '?');
  return `The server answered a streaming request with ${type}, not an event stream (text/event-stream): it does not stream, or the base URL is not the API's. It sent: ${excerpt}`;
}

/** An error response with at most the first MiB of its body, and a line that says where it was cut. */
async function withBodyCut(response: Response): Promise<Response> {
  const { text, whole } = await readStart(response, MAX_READ_BYTES);
  const body = whole ? text : `${text.slice(0, MAX_READ_BYTES)}\n[… the error body was cut at ${MAX_READ_BYTES / 1024 / 1024} MiB]`;
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The HTTP status an error document stands for, or undefined when the body is no error document. */
export function errorStatusOf(text: string): number | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null || typeof (error as { message?: unknown }).message !== 'string') return undefined;
  const { code, status, type } = error as { code?: unknown; status?: unknown; type?: unknown };
  for (const candidate of [status, code]) {
    const value = typeof candidate === 'string' && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) return value;
  }
  // OpenAI's names for a 429 (a used-up quota among them, which a retry cannot get past): a 502 would be retried.
  if ([code, type].some((name) => typeof name === 'string' && /^(?:insufficient_quota|rate_limit_exceeded|rate_limit_error)$/.test(name))) return 429;
  return 502;
}
