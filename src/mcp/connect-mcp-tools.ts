import type { IOType } from 'node:child_process';
import type { Stream } from 'node:stream';
import { createMCPClient, type ListToolsResult, type MCPClient, type MCPClientConfig } from '@ai-sdk/mcp';
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { errorMessage } from '../core/error-message.js';
import { sandboxedCommand } from '../tools/sandboxed-command.js';
import { sandboxSettings, type SandboxSetting } from '../tools/sandbox-settings.js';
import { terminalSafe } from '../text/terminal-safe.js';
import { clientErrorMessage } from './client-error-message.js';
import { boundedFetch } from './bounded-fetch.js';
import { checkConnectBounds, McpConfigError, parseMcpServersConfig, type McpServerConfig, type McpServersConfig, type McpStdioServerConfig } from './mcp-config.js';
import { mergeServerTools, prefixedMcpToolName, type McpToolNaming } from './mcp-tool-names.js';
import { McpToolListError, usableToolDefinitions } from './mcp-tool-definitions.js';
import { isErrorResult, McpToolError } from './mcp-tool-error.js';
import { McpServerExitedError } from './server-exited.js';
import { BoundedStdioTransport } from './stdio-transport.js';

/** How long a server gets to start, answer the handshake and list its tools, unless its config or `timeoutMs` says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long one tool call may wait for its server's answer, unless its config or `callTimeoutMs` says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** The largest message taken from a server, unless its config or `maxMessageBytes` says otherwise. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 2 ** 20;

export interface ConnectMcpToolsOptions {
  /** How a server's tool is named for the agent. Default `mcp__<server>__<tool>` (`prefixedMcpToolName`); `(server, tool) => tool` keeps the servers' own names. */
  toolName?: McpToolNaming;
  /** Names already taken, e.g. `Object.keys(builtinTools(...))`: an MCP tool named like one is an error instead of replacing it. */
  reservedToolNames?: Iterable<string>;
  /**
   * Where stdio servers' stderr (their logs) goes: a function gets each line
   * (cut at 8 KiB) and the server's name; `'inherit'`, `'ignore'`, a stream or
   * an fd are passed to spawn as they are. Default: each line on this
   * process's stderr as `mcp <server>: <line>`, its control characters made
   * visible (`\x1b`), so a server cannot write escape sequences to a terminal.
   * The function also hears of a line a server wrote on stdout that is not a
   * JSON-RPC message, which is skipped.
   */
  stderr?: ((line: string, server: string) => void) | IOType | Stream | number;
  /** Gives up connecting (each server's start, MCP handshake and tool list) when it aborts; the servers already connected are closed. */
  signal?: AbortSignal;
  /** Gives up on a server whose start, MCP handshake and tool list take longer than this; a server's own `connectTimeoutMs` wins. Default 30 s. */
  timeoutMs?: number;
  /**
   * How long one call of a server's tool may wait for its answer; past it the
   * call fails (an error result the model reads, the run goes on) and the
   * request is cancelled toward the server. A server's own `callTimeoutMs`
   * wins. Default 60 s.
   */
  callTimeoutMs?: number;
  /** The largest message taken from a server (a line on stdout, an HTTP body, one event of a stream); a larger one closes its connection. A server's own `maxMessageBytes` wins. Default 64 MiB. */
  maxMessageBytes?: number;
  /** The client name the servers are told. Default `'loopchart'`. */
  clientName?: string;
  /**
   * Where stdio servers run (see `bashTool`'s `sandbox`). Default `'none'`:
   * unconfined. In bubblewrap a server sees no other process and can write
   * only its working directory (its `cwd`, else this process's), `writable`
   * and a private `/tmp`; give `network: true` to a server that needs it.
   */
  sandbox?: SandboxSetting;
}

/**
 * `connectMcpTools`' options, checked whole before any server starts: a misspelt one is refused,
 * not ignored. The bounds are checked by `checkConnectBounds` and the sandbox by `sandboxSettings`,
 * whose messages name them.
 */
const connectOptionsSchema = z.strictObject({
  toolName: functionOption<McpToolNaming>().optional(),
  reservedToolNames: z
    .custom<Iterable<string>>((value) => typeof (value as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] === 'function', { message: 'expected an iterable of tool names' })
    .optional(),
  stderr: z.unknown().optional(),
  signal: z.instanceof(AbortSignal).optional(),
  timeoutMs: z.unknown().optional(),
  callTimeoutMs: z.unknown().optional(),
  maxMessageBytes: z.unknown().optional(),
  clientName: z.string().optional(),
  sandbox: z.unknown().optional(),
});

/** An unknown option (or one of the wrong kind) as an `McpConfigError`, as `connectMcpTools` refuses its bounds. */
function checkConnectOptions(options: ConnectMcpToolsOptions): void {
  try {
    parseOptions('connectMcpTools', connectOptionsSchema, options);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new McpConfigError('options of connectMcpTools', [{ path: '(options)', message: error.message.replace(/^Invalid connectMcpTools options: /, '') }]);
  }
}

/** The MCP servers' tools, and the way to close the servers' connections (and stop the stdio servers' processes). */
export interface McpTools extends AsyncDisposable {
  /** Every server's tools, for `createAgent({ tools })`; their `execute` calls the server. */
  tools: ToolSet;
  /** The tools' names by server, e.g. `{ fs: ['mcp__fs__read_file', ...] }`: for approval rules. */
  toolNamesByServer: Record<string, string[]>;
  /**
   * Closes every client: HTTP sessions are ended and stdio servers' processes
   * are sent SIGTERM (SIGKILL 2 s later), and resolves once they have exited.
   * Safe to call more than once. Rejects, after trying
   * every server, naming the ones whose close failed.
   */
  close(): Promise<void>;
}

/** A server could not be started, reached or listed: `server` is its name in the config. */
export class McpConnectionError extends Error {
  override readonly name = 'McpConnectionError';
  constructor(
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface ConnectedServer {
  server: string;
  client: MCPClient;
  tools: ToolSet;
}

/** What ended a server's connection other than close() (a message over the bound, the server's exit), if anything: for the errors that only say "Connection closed". */
type ConnectionFailure = () => Error | undefined;

/**
 * Connects to MCP servers (the `mcpServers` config of Claude Desktop, Claude
 * Code and Cursor) with the AI SDK's MCP client and returns their tools as
 * one `ToolSet`, named `mcp__<server>__<tool>` by default. All servers connect
 * at once; if one fails, those already connected are closed and the error
 * names the server. Call `close()` when the agent is done (or use `await
 * using`): it ends the HTTP sessions and stops the stdio servers' processes.
 *
 * A stdio server's environment is its `env` entry plus HOME, LOGNAME, PATH,
 * SHELL, TERM and USER, nothing else of this process's environment: API keys
 * reach it only when its `env` names them.
 *
 * Each server gets 30 s (its `connectTimeoutMs`, or `timeoutMs`) to start,
 * answer the handshake and list its tools, and no message from it is held
 * past 64 MiB (its `maxMessageBytes`, or `maxMessageBytes`): a longer one
 * closes its connection. A tool call gets 60 s (its `callTimeoutMs`, or
 * `callTimeoutMs`) to be answered: past it, or when the call's `abortSignal`
 * aborts, the call fails as an error result and its request is cancelled. A
 * result the server marks `isError: true` fails the call too (an
 * `McpToolError` with the server's text): the model gets it as an error. A
 * stdio server's stderr lines reach this process's stderr prefixed with its
 * name and made safe for a terminal (see `stderr`).
 *
 * MCP tools are arbitrary side effects: have them ask for approval, e.g.
 * `approval: { ask: ['mcp__*'] }`.
 *
 * @example
 * ```ts
 * import { createAgent } from 'loopchart';
 * import { connectMcpTools } from 'loopchart/mcp';
 *
 * const mcp = await connectMcpTools({
 *   mcpServers: {
 *     fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
 *     docs: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: `Bearer ${apiKey}` } },
 *   },
 * });
 * try {
 *   const agent = createAgent({ model, tools: { ...tools, ...mcp.tools }, approval: { ask: ['mcp__*'] } });
 *   await agent.run('List the files in the current directory.');
 * } finally {
 *   await mcp.close();
 * }
 * ```
 * @throws McpConfigError when the config or one of `timeoutMs`, `callTimeoutMs` and `maxMessageBytes` is invalid (naming the field), or an option is unknown, McpConnectionError naming a server that could not be connected, McpToolNameError when two tools would share a name.
 */
export async function connectMcpTools(config: McpServersConfig, options: ConnectMcpToolsOptions = {}): Promise<McpTools> {
  const servers = Object.entries(parseMcpServersConfig(config));
  checkConnectOptions(options);
  checkConnectBounds(options);
  sandboxSettings(options.sandbox ?? 'none');
  const settled = await Promise.allSettled(servers.map(([server, serverConfig]) => connectServer(server, serverConfig, options)));
  const connected = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const close = closeOnce(connected);
  const failures = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) {
    await close().catch(() => {});
    const [first, ...others] = failures;
    if (others.length === 0) throw first;
    const names = failures.map((failure) => (failure instanceof McpConnectionError ? `"${failure.server}"` : '?')).join(', ');
    throw new McpConnectionError(first instanceof McpConnectionError ? first.server : '?', `${failures.length} MCP servers could not be connected (${names}); the first: ${errorMessage(first)}`, {
      cause: new AggregateError(failures),
    });
  }
  const toolName = options.toolName ?? prefixedMcpToolName;
  let tools: ToolSet;
  try {
    tools = mergeServerTools(connected, {
      toolName,
      ...(options.reservedToolNames ? { reservedToolNames: options.reservedToolNames } : {}),
    });
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  const toolNamesByServer = Object.fromEntries(connected.map(({ server, tools: own }) => [server, Object.keys(own).map((tool) => toolName(server, tool))]));
  return { tools, toolNamesByServer, close, [Symbol.asyncDispose]: close };
}

/**
 * Starts or reaches one server, does the MCP handshake and lists its tools,
 * all within its connect timeout and until `options.signal` aborts; closes the
 * client again if any of it fails.
 */
async function connectServer(server: string, config: McpServerConfig, options: ConnectMcpToolsOptions): Promise<ConnectedServer> {
  const where = config.type === 'stdio' ? `command "${config.command}"` : config.url;
  const timeoutMs = config.connectTimeoutMs ?? options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  // Aborted when the transport closed the connection for a message over the bound: connecting stops at once.
  const closedForBound = new AbortController();
  const signal = AbortSignal.any([deadline, closedForBound.signal, ...(options.signal ? [options.signal] : [])]);
  const log = serverLog(server, options.stderr);
  let client: MCPClient | undefined;
  let started: McpServerConfig = config;
  if (config.type === 'stdio') {
    try {
      started = await inSandbox(config, options.sandbox);
    } catch (error) {
      throw new McpConnectionError(server, `MCP server "${server}" (${where}) could not be started in the sandbox: ${errorMessage(error)}`, { cause: error });
    }
  }
  const { transport, failure } = transportFor(started, {
    stderr: log ?? (options.stderr as IOType | Stream | number),
    ...(log ? { onSkippedLine: log } : {}),
    maxMessageBytes: config.maxMessageBytes ?? options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    closeClient: () => {
      closedForBound.abort();
      void client?.close().catch(() => {});
    },
  });
  // Why connecting failed, in the words of what stopped it: a bound, the deadline, the caller, or the server.
  const reason = (error: unknown) => {
    const closedForIt = failure();
    if (closedForIt) return errorMessage(closedForIt);
    if (deadline.aborted) return `no answer within ${timeoutMs} ms (connectTimeoutMs)`;
    return options.signal?.aborted ? 'connecting was stopped' : clientErrorMessage(error);
  };
  try {
    client = await createMCPClient({
      transport,
      clientName: options.clientName ?? 'loopchart',
      initializationOptions: { signal },
    });
  } catch (error) {
    throw new McpConnectionError(server, `MCP server "${server}" (${where}) could not be connected: ${reason(error)}`, { cause: failure() ?? error });
  }
  try {
    const tools = await untilAborted(listTools(client, signal), signal);
    const callTimeoutMs = config.callTimeoutMs ?? options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return { server, client, tools: boundedCalls(tools, { server, callTimeoutMs, failure }) };
  } catch (error) {
    await client.close().catch(() => {});
    const said = error instanceof McpToolListError ? `listed tools an agent cannot be given: ${error.message}` : `did not list its tools: ${reason(error)}`;
    throw new McpConnectionError(server, `MCP server "${server}" (${where}) ${said}`, { cause: failure() ?? error });
  }
}

/**
 * The server's tools, every page of its list, checked ({@link usableToolDefinitions}): the
 * client's own `tools()` keeps the last of two tools with one name and drops the other.
 */
async function listTools(client: MCPClient, signal: AbortSignal): Promise<ToolSet> {
  const definitions: ListToolsResult['tools'] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools({ ...(cursor === undefined ? {} : { params: { cursor } }), options: { signal } });
    definitions.push(...page.tools);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return client.toolsFromDefinitions({ tools: usableToolDefinitions(definitions) });
}

function transportFor(
  config: McpServerConfig,
  {
    stderr,
    onSkippedLine,
    maxMessageBytes,
    closeClient,
  }: { stderr: ((line: string) => void) | IOType | Stream | number; onSkippedLine?: (note: string) => void; maxMessageBytes: number; closeClient: () => void },
): { transport: MCPClientConfig['transport']; failure: ConnectionFailure } {
  if (config.type === 'stdio') {
    const transport = new BoundedStdioTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      // Always an explicit environment: only HOME, LOGNAME, PATH, SHELL, TERM and USER are added to it.
      env: { ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      stderr,
      ...(onSkippedLine ? { onSkippedLine } : {}),
      maxMessageBytes,
    });
    return { transport, failure: () => transport.failure };
  }
  let tooLarge: Error | undefined;
  const fetch = boundedFetch(maxMessageBytes, (error) => {
    tooLarge ??= error;
    closeClient();
  });
  return { transport: { type: config.type, url: config.url, ...(config.headers ? { headers: config.headers } : {}), fetch }, failure: () => tooLarge };
}

/** The line sink of a server's log: the caller's function, or by default this process's stderr, made safe for a terminal; none when stderr goes elsewhere. */
function serverLog(server: string, stderr: ConnectMcpToolsOptions['stderr']): ((line: string) => void) | undefined {
  if (typeof stderr === 'function') return (line) => stderr(line, server);
  if (stderr === undefined) return (line) => void process.stderr.write(`mcp ${server}: ${terminalSafe(line)}\n`);
  return undefined;
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason as Error);
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

/**
 * The server's tools, each call bounded: it is given up, and its request
 * cancelled, when the call's own `abortSignal` aborts or `callTimeoutMs` has
 * passed without an answer. A call fails with what closed the connection (a
 * message over the bound) rather than the client's "Connection closed", and
 * one that timed out says so, naming the server and the tool. A result the
 * server marks `isError: true` is thrown as an {@link McpToolError}, so the
 * run takes the call as failed.
 */
function boundedCalls(tools: ToolSet, { server, callTimeoutMs, failure }: { server: string; callTimeoutMs: number; failure: ConnectionFailure }): ToolSet {
  return Object.fromEntries<ToolSet[string]>(
    Object.entries(tools).map(([name, tool]) => {
      const execute = tool.execute;
      if (!execute) return [name, tool];
      return [
        name,
        {
          ...tool,
          execute: async (input: unknown, executeOptions: Parameters<typeof execute>[1]) => {
            const caller = executeOptions.abortSignal;
            caller?.throwIfAborted();
            // The client cancels the request toward the server when this signal aborts (the stdio transport sends notifications/cancelled, HTTP aborts the POST).
            const deadline = new AbortController();
            const timer = setTimeout(
              () => deadline.abort(new Error(`MCP server "${server}" did not answer the call of its tool "${name}" within ${callTimeoutMs} ms (callTimeoutMs); the call was cancelled`)),
              callTimeoutMs,
            );
            const abortSignal = caller ? AbortSignal.any([caller, deadline.signal]) : deadline.signal;
            let output: unknown;
            try {
              output = await untilAborted(Promise.resolve(execute(input, { ...executeOptions, abortSignal })), abortSignal);
            } catch (error) {
              if (deadline.signal.aborted && !caller?.aborted) throw deadline.signal.reason as Error;
              const ended = failure();
              if (ended instanceof McpServerExitedError) throw new Error(`MCP server "${server}" could not answer the call of its tool "${name}": ${ended.message}`, { cause: error });
              if (ended) throw ended;
              const said = clientErrorMessage(error);
              // The client's "Failed to parse server response" or "fetch failed", with what its cause says.
              if (said !== errorMessage(error)) throw new Error(said, { cause: error });
              throw error;
            } finally {
              clearTimeout(timer);
            }
            // The AI SDK's client returns an error result as a result: the run would take the failed call for a success.
            if (isErrorResult(output)) throw new McpToolError(server, name, output);
            return output;
          },
        },
      ];
    }),
  );
}

/** The server's command and arguments, rewritten to start it in the sandbox; its environment stays the transport's. */
async function inSandbox(config: McpStdioServerConfig, sandbox: SandboxSetting = 'none'): Promise<McpStdioServerConfig> {
  const { command, args } = await sandboxedCommand(sandboxSettings(sandbox), { command: config.command, args: config.args ?? [], workspace: config.cwd ?? process.cwd() });
  return { ...config, command, args };
}

/** A close that runs once for every caller, tries every client, and names the servers whose close failed. */
function closeOnce(connected: readonly ConnectedServer[]): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      const results = await Promise.allSettled(connected.map(({ client }) => client.close()));
      const failed = results.flatMap((result, index) => (result.status === 'rejected' ? [{ server: connected[index]!.server, error: result.reason as unknown }] : []));
      if (failed.length > 0) {
        throw new Error(`closing MCP servers failed: ${failed.map(({ server, error }) => `"${server}": ${errorMessage(error)}`).join('; ')}`, {
          cause: new AggregateError(failed.map(({ error }) => error)),
        });
      }
    })());
}
