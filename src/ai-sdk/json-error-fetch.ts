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
 * @example
 * const provider = createOpenAI({ baseURL, apiKey, fetch: jsonErrorAwareFetch() });
 */
export function jsonErrorAwareFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('application/json') || !isStreamingRequest(init)) return response;
    const text = await response.text();
    const status = errorStatusOf(text);
    return new Response(text, { status: status ?? 200, statusText: status ? 'error document in a 200 response' : response.statusText, headers: response.headers });
  };
}

function isStreamingRequest(init: RequestInit | undefined): boolean {
  return typeof init?.body === 'string' && /"stream"\s*:\s*true/.test(init.body);
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
  const { code, status } = error as { code?: unknown; status?: unknown };
  for (const candidate of [status, code]) {
    const value = typeof candidate === 'string' && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) return value;
  }
  return 502;
}
