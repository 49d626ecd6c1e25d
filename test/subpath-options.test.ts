/**
 * The public functions of loopchart/postgres, /redis, /dbos, /inspect, /mcp and /report refuse an
 * option they do not know, naming the one meant: a misspelt one would otherwise be ignored and its
 * default used. The check comes first, so a refused option never opens a connection, reads a file
 * or starts a timer: the stubs below record anything done with them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { Pool } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { pgStore, watchSession } from '../src/postgres/index.js';
import { readSessionEvents, redisEventPublisher, serveSessionEvents, type RedisClient } from '../src/redis/index.js';
import { pgControlChannel, registerSessionQueue, registerSessionWorkflows, sessionClient, startWorkerRecovery } from '../src/dbos/index.js';
import { agentInspectorOptions, createBrowserInspector, createSkyInspector, createWebSocketInspector, startInspectorRelay, type InspectorRelay } from '../src/inspect/index.js';
import { askForMcpTools, connectMcpTools, loadMcpServersConfig, McpConfigError } from '../src/mcp/index.js';
import { renderTraceReport, startPlaybackServer } from '../src/report/index.js';
import type { SessionStore } from '../src/persistence/session-store.js';

/** What was done with the stubs: any call is a connection, a read or a listener the refusal should have come before. */
let touched: string[] = [];
afterEach(() => {
  touched = [];
});

/** An object whose every method records its call. */
function stub<T>(name: string, methods: string[]): T {
  return Object.fromEntries(
    methods.map((method) => [
      method,
      (..._args: unknown[]) => {
        touched.push(`${name}.${method}`);
        return method === 'on' ? undefined : method === 'quit' ? Promise.resolve('OK') : new Promise(() => undefined);
      },
    ]),
  ) as T;
}

const pool = () => stub<Pool>('pool', ['connect', 'query', 'on', 'end']);
const redis = () => stub<RedisClient>('redis', ['xAdd', 'expire', 'xRead', 'eval', 'xRange', 'quit', 'on']);
const store = () => stub<SessionStore>('store', ['read', 'create', 'append']);
const dbosClient = () => stub<DBOSClient>('dbos', ['enqueue', 'send', 'listWorkflows', 'getEvent', 'retrieveWorkflow']);
const request = () => stub<IncomingMessage>('request', ['on']) as IncomingMessage & { headers: Record<string, string> };
const response = () => stub<ServerResponse>('response', ['on', 'writeHead', 'write', 'end', 'destroy']);

/** What `call` threw or rejected with. */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    const result = call();
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) await (result as AsyncGenerator).next();
    else await result;
  } catch (error) {
    return error;
  }
  return new Error('not refused');
}

describe('the subpaths refuse an unknown option, naming the one meant, before anything is done', () => {
  it.each([
    ['pgStore', () => pgStore(pool(), { schemas: 'tenant_a' } as never), 'unknown option "schemas" (did you mean "schema"?)'],
    ['watchSession', () => watchSession({ pool: pool(), store: store(), sessionId: 'chat-1', heartbeat: 5_000 } as never), 'unknown option "heartbeat" (did you mean "heartbeatMs"?)'],
    ['redisEventPublisher', () => redisEventPublisher({ redis: redis(), writeTimeout: 1_000 } as never), 'unknown option "writeTimeout" (did you mean "writeTimeoutMs"?)'],
    ['readSessionEvents', () => readSessionEvents({ redis: redis(), sessionId: 'chat-1', lastEventID: '1-0' } as never), 'unknown option "lastEventID" (did you mean "lastEventId"?)'],
    ['sessionClient', () => sessionClient(dbosClient(), { timeout: 5_000 } as never), 'unknown option "timeout" (did you mean "timeoutMs"?)'],
    ['startWorkerRecovery', () => startWorkerRecovery({ pool: pool(), executorID: 'worker-1', applicationVersion: 'v1', deadAfter: 5_000 } as never), 'unknown option "deadAfter" (did you mean "deadAfterMs"?)'],
    ['pgControlChannel', () => pgControlChannel(pool(), { heartbeat: 100 } as never), 'unknown option "heartbeat" (did you mean "heartbeatMs"?)'],
    ['registerSessionWorkflows', () => registerSessionWorkflows({ store: store(), agent: {} as never, leaseTTLMs: 500 } as never), 'unknown option "leaseTTLMs" (did you mean "leaseTtlMs"?)'],
    // Given to DBOS's queue as it was, it would have undone one turn at a time per session.
    ['registerSessionQueue', () => registerSessionQueue({ partitionConcurrency: 4 } as never), 'unknown option "partitionConcurrency"'],
    ['startInspectorRelay', () => startInspectorRelay({ replayByte: 1024 } as never), 'unknown option "replayByte" (did you mean "replayBytes"?)'],
    ['createWebSocketInspector', () => createWebSocketInspector({ url: 'ws://127.0.0.1:1/', autostart: false } as never), 'unknown option "autostart" (did you mean "autoStart"?)'],
    ['createWebSocketInspector', () => createWebSocketInspector({ url: 'ws://127.0.0.1:1/', autoStart: false, reconnectDelayMs: 10 } as never), 'unknown option "reconnectDelayMs"'],
    ['createBrowserInspector', () => createBrowserInspector({ autoStart: false, sanitizeContext: (context: object) => context } as never), 'unknown option "sanitizeContext"'],
    ['createSkyInspector', () => createSkyInspector({ autoStart: false, apikey: 'key' } as never), 'unknown option "apikey" (did you mean "apiKey"?)'],
    ['agentInspectorOptions', () => agentInspectorOptions({ secret: ['sk-1'] } as never), 'unknown option "secret" (did you mean "secrets"?)'],
    ['loadMcpServersConfig', () => loadMcpServersConfig('/nonexistent/.mcp.json', { envs: {} } as never), 'unknown option "envs" (did you mean "env"?)'],
    ['askForMcpTools', () => askForMcpTools({ alow: ['mcp__fs__read_file'] } as never, ['mcp__fs__read_file']), 'unknown option "alow" (did you mean "allow"?)'],
    ['renderTraceReport', () => renderTraceReport({} as never, {} as never, { tilte: 'Oslo' } as never), 'unknown option "tilte" (did you mean "title"?)'],
    ['startPlaybackServer', () => startPlaybackServer({ store: store(), sessionId: 'chat-1', runfork: async () => undefined } as never), 'unknown option "runfork" (did you mean "runFork"?)'],
  ])('%s', async (name, call, problem) => {
    const error = await refusal(call);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(new RegExp(`^Invalid ${name} options: ${problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(touched).toEqual([]);
  });

  it.each([
    ['watchSession', () => watchSession({ pool: pool(), store: store(), sessionId: 'chat-1', heartbeat: 5_000 } as never), /^Invalid watchSession options: unknown option "heartbeat"/],
    ['watchSession', () => watchSession({ pool: pool(), store: store(), sessionId: 'chat-1', heartbeatMs: 0 }), /^watchSession: heartbeatMs must be a positive number of ms/],
    ['watchSession', () => watchSession({ pool: pool(), store: store(), sessionId: '../chat' }), /^Invalid session id "\.\.\/chat"/],
    ['readSessionEvents', () => readSessionEvents({ redis: redis(), sessionId: 'chat-1', lastEventID: '1-0' } as never), /^Invalid readSessionEvents options: unknown option "lastEventID"/],
    ['readSessionEvents', () => readSessionEvents({ redis: redis(), sessionId: 'chat-1', blockMs: 0 }), /^readSessionEvents: blockMs must be a whole number of ms/],
  ])('%s refuses a bad option when it is called, not at the first read of the generator it returns', (_name, call, problem) => {
    // A generator handed on before it is read would otherwise carry the bad option to wherever it is read.
    expect(call).toThrow(problem);
    expect(touched).toEqual([]);
  });

  it('serveSessionEvents refuses before the response is begun, and closes the reader it was handed', async () => {
    const error = await refusal(() => serveSessionEvents(request(), response(), { redis: redis(), sessionId: 'chat-1', heartbeat: 1_000 } as never));
    expect((error as Error).message).toMatch(/^Invalid serveSessionEvents options: unknown option "heartbeat" \(did you mean "heartbeatMs"\?\)/);
    expect(touched).toEqual(['redis.quit']);
  });

  it('connectMcpTools refuses as it refuses its bounds, an McpConfigError, before any server starts', async () => {
    const error = await refusal(() => connectMcpTools({ mcpServers: { fs: { command: '/nonexistent/mcp-server' } } }, { timeout: 5_000 } as never));
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).issues).toEqual([{ path: '(options)', message: expect.stringMatching(/^unknown option "timeout" \(did you mean "timeoutMs"\?\); it takes toolName, /) as string }]);
  });
});

describe('options that had no check and are now refused, naming them, instead of misbehaving', () => {
  let relay: InspectorRelay | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  it.each([
    // 0 or NaN would beat every millisecond and count every other worker dead at once.
    ['startWorkerRecovery', () => startWorkerRecovery({ pool: pool(), executorID: 'worker-1', applicationVersion: 'v1', deadAfterMs: Number.NaN }), 'deadAfterMs: Invalid input: expected number, received NaN'],
    ['startWorkerRecovery', () => startWorkerRecovery({ pool: pool(), executorID: 'worker-1', applicationVersion: 'v1', heartbeatMs: 0 }), 'heartbeatMs: Too small'],
    ['startWorkerRecovery', () => startWorkerRecovery({ pool: pool(), executorID: 'worker-1', applicationVersion: 'v1', onError: 'log' as never }), 'onError: expected a function'],
    // Refused by the first subscribe before, which advanceSession takes as "no live control".
    ['pgControlChannel', () => pgControlChannel(pool(), { heartbeatMs: -1 }), 'heartbeatMs: Too small'],
    // A keep-alive every millisecond.
    ['serveSessionEvents', () => serveSessionEvents(request(), response(), { redis: stub<RedisClient>('reader', ['quit']), sessionId: 'chat-1', heartbeatMs: 0 }), 'heartbeatMs: Too small'],
    // NaN: every page disconnected at its first frame.
    ['startInspectorRelay', () => startInspectorRelay({ maxBufferedBytes: Number.NaN }), 'maxBufferedBytes: Invalid input: expected number, received NaN'],
    ['startInspectorRelay', () => startInspectorRelay({ inspectorLoadTimeoutMs: 2 ** 31 }), 'inspectorLoadTimeoutMs: at most 2147483647 ms'],
    ['startInspectorRelay', () => startInspectorRelay({ inspectorUrl: 'javascript:alert(1)' }), 'inspectorUrl: expected an http(s) URL'],
    // Given to @statelyai/inspect as they were: text or NaN never drops a waiting event, so the wait grew without end.
    ['createBrowserInspector', () => createBrowserInspector({ autoStart: false, maxDeferredEvents: Number.NaN }), 'maxDeferredEvents: expected a whole number of events, 0 or more'],
    ['createSkyInspector', () => createSkyInspector({ autoStart: false, maxDeferredEvents: '200' as never }), 'maxDeferredEvents: expected a whole number of events, 0 or more'],
    ['createBrowserInspector', () => createBrowserInspector({ autoStart: false, window: {} as never }), 'window: expected a Window (an object with postMessage)'],
    ['createBrowserInspector', () => createBrowserInspector({ autoStart: false, iframe: '#inspector' as never }), 'iframe: expected an iframe element or null'],
    ['pgStore', () => pgStore(pool(), { onConnectionError: 'log' as never }), 'onConnectionError: expected a function'],
    // 0 would have a turn that waits for an answer wake at once, again and again; a bad lease was refused only by each turn.
    ['registerSessionWorkflows', () => registerSessionWorkflows({ store: store(), agent: {} as never, approvalWaitSeconds: 0 }), 'approvalWaitSeconds: Too small'],
    ['registerSessionWorkflows', () => registerSessionWorkflows({ store: store(), agent: {} as never, leaseTtlMs: 50 }), 'leaseTtlMs: expected a whole number of milliseconds, at least 100'],
    // A store of one's own that read it started the server, whose page then refused its every request ("session: expected …").
    ['startPlaybackServer', () => startPlaybackServer({ store: store(), sessionId: 'chat 42' }), 'sessionId: expected 1-128 letters, digits, dots, dashes or underscores'],
  ])('%s', async (name, call, problem) => {
    const error = await refusal(call);
    expect((error as Error).message).toMatch(new RegExp(`^Invalid ${name} options: ${problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(touched.filter((call) => !call.startsWith('reader.'))).toEqual([]);
  });

  it('watchSession refuses a heartbeatMs past what a timer can wait (it would fire at once) before it connects', async () => {
    const error = await refusal(() => watchSession({ pool: pool(), store: store(), sessionId: 'chat-1', heartbeatMs: 2 ** 31 }));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(/heartbeatMs must be a positive number of ms, at most 2147483647, not 2147483648/);
    expect(touched).toEqual([]);
  });

  it('serveSessionEvents refuses a readTimeoutMs readSessionEvents would refuse before the response is begun, not in it as an error event', async () => {
    const error = await refusal(() => serveSessionEvents(request(), response(), { redis: redis(), sessionId: 'chat-1', readTimeoutMs: -1 }));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe('serveSessionEvents: readTimeoutMs must be a number of ms, 0 or more, not -1');
    expect(touched).toEqual(['redis.quit']);
  });

  it("startInspectorRelay writes its inspectorUrl into the page as the URL parser writes it: a quote cannot end the iframe's attribute", async () => {
    relay = await startInspectorRelay({ inspectorUrl: 'https://inspect.example/"><script>alert(1)</script>' });
    const page = await (await fetch(relay.pageUrl)).text();
    expect(page).toContain('<iframe id="inspector" src="https://inspect.example/%22%3E%3Cscript%3Ealert(1)%3C/script%3E"></iframe>');
    expect(page).not.toContain('"><script>alert');
  });
});
