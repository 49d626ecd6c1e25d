/**
 * Whether a provider's request asks for a stream: `"stream": true` in its JSON body (OpenAI,
 * Anthropic and their peers), `alt=sse` in its URL (Google's `:streamGenerateContent?alt=sse`), or
 * an `accept: text/event-stream` header. Pure.
 *
 * @example
 * isStreamingRequest('https://api.openai.com/v1/chat/completions', { body: '{"model":"m","stream":true}' }) // true
 * isStreamingRequest('https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse', { body: '{}' }) // true
 * isStreamingRequest('https://api.openai.com/v1/chat/completions', { body: '{"model":"m"}' }) // false
 */
export function isStreamingRequest(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): boolean {
  if (typeof init?.body === 'string' && /"stream"\s*:\s*true/.test(init.body)) return true;
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (/[?&]alt=sse(?:&|$)/.test(url)) return true;
  const accept = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('accept') ?? '';
  return accept.toLowerCase().includes('text/event-stream');
}
