/**
 * A local stand-in for the OpenAI chat-completions API, for tests that go
 * through the real `@ai-sdk/openai` provider over HTTP on 127.0.0.1.
 *
 * Each POST to `/v1/chat/completions` takes the next scripted response, in
 * order: an HTTP error, a 200 `text/event-stream` of chat-completion chunks,
 * or a dropped connection. Every request is recorded so that a test can assert
 * what the model was sent.
 *
 * @example
 * const server = await startOpenAIServer([
 *   streamResponse({ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }),
 *   errorResponse(429, { headers: { 'retry-after-ms': '10' } }),
 *   streamResponse({ text: ['Done', '.'] }),
 * ]);
 * const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).chat('gpt-test');
 * // … run something …
 * expect(server.requests[1]?.body.messages).toContainEqual(expect.objectContaining({ role: 'tool' }));
 * await server.close();
 */
import { afterEach } from 'vitest';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A 200 `text/event-stream` response: each chunk is sent as one `data:` event. */
export interface StreamHttpResponse {
  kind: 'stream';
  /** Objects are sent as JSON; a string is sent verbatim as the event's data (e.g. malformed JSON). */
  chunks: Array<object | string>;
  /** Default 200. */
  status?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait before sending the status line and headers. */
  delayMs?: number;
  /** Wait before each chunk. */
  chunkDelayMs?: number;
  /**
   * How the stream ends after the chunks: `'done'` (default) sends `data: [DONE]`
   * and ends the response; `'end'` ends it without `[DONE]`; `'hang'` keeps it
   * open until the client goes away; `'reset'` destroys the socket mid-body.
   */
  end?: 'done' | 'end' | 'hang' | 'reset';
}

/** An HTTP error: `status`, `headers` and a JSON `body` (default: an OpenAI-style error object). */
export interface ErrorHttpResponse {
  kind: 'error';
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON. Default `{ error: { message: 'HTTP <status>', type: 'server_error' } }`. */
  body?: unknown;
  /** Sent verbatim instead of `body`, with this `content-type` (an HTML error page, a login page). */
  rawBody?: { text: string; contentType: string };
  /** Wait before answering. */
  delayMs?: number;
}

/** No response at all: the socket is destroyed once the request has arrived (a network failure). */
export interface ResetHttpResponse {
  kind: 'reset';
  delayMs?: number;
}

export type ScriptedHttpResponse = StreamHttpResponse | ErrorHttpResponse | ResetHttpResponse;

/** The parts of a chat-completions request body that tests usually look at; the rest is there too. */
export interface ChatCompletionRequest {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content?: unknown;
    tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [field: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The request body parsed as JSON (`undefined` when it was not JSON). */
  body: ChatCompletionRequest | undefined;
  /** The raw request body. */
  rawBody: string;
}

export interface OpenAIServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/v1`, the `baseURL` for `createOpenAI`. */
  baseURL: string;
  /** Every request received so far, in arrival order, including unexpected ones. */
  requests: RecordedRequest[];
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs` (default 30,000: a CLI started on a loaded machine can take seconds to send its first). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

/** Where the server answers: another provider's endpoint speaks its own event-stream chunks over the same server. */
export interface ServerRoute {
  /** The request path (with its query) the scripted responses answer. Default `/v1/chat/completions`. */
  path?: string | RegExp;
}

/**
 * Starts the server on 127.0.0.1, on a free port. A request beyond the scripted
 * responses, or to another path than POST `/v1/chat/completions` (or `route.path`),
 * gets a 500 (or 404) whose error message says so, and is recorded too.
 */
export async function startOpenAIServer(responses: readonly ScriptedHttpResponse[], route: ServerRoute = {}): Promise<OpenAIServer> {
  const path = route.path ?? '/v1/chat/completions';
  const answers = (url: string | undefined) => (typeof path === 'string' ? url === path : path.test(url ?? ''));
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  let answered = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: parseJson(rawBody) as ChatCompletionRequest | undefined, rawBody });
      for (const wake of waiters) wake();
      if (request.method !== 'POST' || !answers(request.url)) {
        sendJson(response, 404, {}, openAIError(`no route for ${request.method} ${request.url}`, 'not_found'));
        return;
      }
      const scripted = responses[answered];
      answered++;
      if (scripted === undefined) {
        sendJson(response, 500, {}, openAIError(`the test server has no scripted response for request ${answered} (only ${responses.length})`));
        return;
      }
      void answer(scripted, response);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    waitForRequests(count, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`expected ${count} request(s) within ${timeoutMs} ms, got ${requests.length}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function answer(scripted: ScriptedHttpResponse, response: ServerResponse): Promise<void> {
  let gone = false;
  response.on('close', () => (gone = true));
  if (scripted.delayMs) await sleep(scripted.delayMs);
  if (gone) return;

  switch (scripted.kind) {
    case 'reset':
      response.socket?.destroy();
      return;
    case 'error':
      if (scripted.rawBody) {
        response.writeHead(scripted.status, { 'content-type': scripted.rawBody.contentType, ...scripted.headers });
        response.end(scripted.rawBody.text);
        return;
      }
      sendJson(response, scripted.status, scripted.headers ?? {}, scripted.body ?? openAIError(`HTTP ${scripted.status}`));
      return;
    case 'stream':
      break;
  }

  response.writeHead(scripted.status ?? 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...scripted.headers,
  });
  response.flushHeaders();
  for (const chunk of scripted.chunks) {
    if (scripted.chunkDelayMs) await sleep(scripted.chunkDelayMs);
    if (gone) return;
    response.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
  }
  switch (scripted.end ?? 'done') {
    case 'done':
      response.end('data: [DONE]\n\n');
      break;
    case 'end':
      response.end();
      break;
    case 'hang':
      break;
    case 'reset':
      response.socket?.destroy();
      break;
  }
}

function sendJson(response: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An OpenAI-style error body. */
export function openAIError(message: string, type = 'server_error', code: string | null = null): { error: { message: string; type: string; code: string | null } } {
  return { error: { message, type, code } };
}

/** One tool call of a streamed turn. */
export interface StreamedToolCall {
  /** Default `call_<turn>_<n>`: unique within the test process. */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent verbatim. */
  arguments: object | string;
  /** Split the arguments into deltas of this many characters. Default: two deltas. */
  argumentChunkSize?: number;
}

/** What one streamed model turn contains; {@link streamChunks} turns it into chat-completion chunks. */
export interface StreamedTurn {
  /** `reasoning_content` deltas before the text, as DeepSeek, vLLM, Kimi and xAI stream their reasoning. */
  reasoning?: string[];
  /** A string is sent word by word; an array as exactly those deltas. */
  text?: string | string[];
  toolCalls?: StreamedToolCall[];
  /** OpenAI's `finish_reason`. Default `tool_calls` when there are tool calls, else `stop`; `null` sends none. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | null;
  /** Default `{ prompt_tokens: 10, completion_tokens: 5 }`; `null` sends no usage chunk. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Default `gpt-test`. */
  model?: string;
}

let turnCounter = 0;

/** The chat-completion chunks of one turn: role, text deltas, tool-call deltas, finish_reason, usage. */
export function streamChunks(turn: StreamedTurn): object[] {
  turnCounter++;
  const id = `chatcmpl-test-${turnCounter}`;
  const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model: turn.model ?? 'gpt-test' };
  const choice = (delta: object, finishReason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });

  const chunks: object[] = [choice({ role: 'assistant', content: '' })];
  for (const delta of turn.reasoning ?? []) chunks.push(choice({ reasoning_content: delta }));
  const deltas = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : (turn.text.match(/\S+\s*|\s+/g) ?? []);
  for (const delta of deltas) chunks.push(choice({ content: delta }));

  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const size = call.argumentChunkSize ?? Math.max(1, Math.ceil(args.length / 2));
    chunks.push(
      choice({ tool_calls: [{ index, id: call.id ?? `call_${turnCounter}_${index + 1}`, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (let start = 0; start < args.length; start += size) {
      chunks.push(choice({ tool_calls: [{ index, function: { arguments: args.slice(start, start + size) } }] }));
    }
  });

  const finishReason = turn.finishReason === undefined ? (turn.toolCalls?.length ? 'tool_calls' : 'stop') : turn.finishReason;
  if (finishReason !== null) chunks.push(choice({}, finishReason));
  const usage = turn.usage === undefined ? { prompt_tokens: 10, completion_tokens: 5 } : turn.usage;
  if (usage !== null) chunks.push({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  return chunks;
}

/** A 200 event-stream response for one turn. */
export function streamResponse(turn: StreamedTurn, options: Omit<StreamHttpResponse, 'kind' | 'chunks'> = {}): StreamHttpResponse {
  return { kind: 'stream', chunks: streamChunks(turn), ...options };
}

/** An HTTP error response; the body defaults to an OpenAI-style error. */
export function errorResponse(status: number, options: Omit<ErrorHttpResponse, 'kind' | 'status'> = {}): ErrorHttpResponse {
  return { kind: 'error', status, ...options };
}

/**
 * For a test file: `serve(responses)` starts a scripted server, and each one is closed after the test
 * that started it. Call at the file's top level.
 *
 * @example
 * const serve = useOpenAIServers();
 * const server = await serve([streamResponse({ text: 'Hi.' })]);
 */
export function useOpenAIServers(): (responses: readonly ScriptedHttpResponse[], route?: ServerRoute) => Promise<OpenAIServer> {
  const servers: OpenAIServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (responses, route) => {
    const server = await startOpenAIServer(responses, route);
    servers.push(server);
    return server;
  };
}
