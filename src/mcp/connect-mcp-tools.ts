import type { IOType } from 'node:child_process';
import type { Stream } from 'node:stream';
import { createMCPClient, type MCPClient, type MCPClientConfig } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { ToolSet } from 'ai';
import { errorMessage } from '../errors/error-message.js';
import { sandboxedCommand } from '../tools/sandboxed-command.js';
import { sandboxSettings, type SandboxSetting } from '../tools/sandbox-settings.js';
import { parseMcpServersConfig, type McpServerConfig, type McpServersConfig, type McpStdioServerConfig } from './mcp-config.js';
import { mergeServerTools, prefixedMcpToolName, type McpToolNaming } from './mcp-tool-names.js';

export interface ConnectMcpToolsOptions {
  /** How a server's tool is named for the agent. Default `mcp__<server>__<tool>` (`prefixedMcpToolName`); `(server, tool) => tool` keeps the servers' own names. */
  toolName?: McpToolNaming;
  /** Names already taken, e.g. `Object.keys(builtinTools(...))`: an MCP tool named like one is an error instead of replacing it. */
  reservedToolNames?: Iterable<string>;
  /** Where stdio servers' stderr (their logs) goes. Default `'inherit'`: this process's stderr. */
  stderr?: IOType | Stream | number;
  /** Gives up connecting (each server's start and MCP handshake) when it aborts; the servers already connected are closed. */
  signal?: AbortSignal;
  /** Gives up on a server whose start and MCP handshake take longer than this. Default: no limit. */
  timeoutMs?: number;
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

/** The MCP servers' tools, and the way to close the servers' connections (and stop the stdio servers' processes). */
export interface McpTools extends AsyncDisposable {
  /** Every server's tools, for `createAgent({ tools })`; their `execute` calls the server. */
  tools: ToolSet;
  /** The tools' names by server, e.g. `{ fs: ['mcp__fs__read_file', ...] }`: for approval rules. */
  toolNamesByServer: Record<string, string[]>;
  /**
   * Closes every client: HTTP sessions are ended and stdio servers' processes
   * are sent SIGTERM. Safe to call more than once. Rejects, after trying
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
 * @throws McpConfigError when the config is invalid (naming the field), McpConnectionError naming a server that could not be connected, McpToolNameError when two tools would share a name.
 */
export async function connectMcpTools(config: McpServersConfig, options: ConnectMcpToolsOptions = {}): Promise<McpTools> {
  const servers = Object.entries(parseMcpServersConfig(config));
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

/** Starts or reaches one server, does the MCP handshake and lists its tools; closes the client again if listing fails. */
async function connectServer(server: string, config: McpServerConfig, options: ConnectMcpToolsOptions): Promise<ConnectedServer> {
  const where = config.type === 'stdio' ? `command "${config.command}"` : config.url;
  let client: MCPClient;
  try {
    client = await createMCPClient({
      transport: transportFor(config.type === 'stdio' ? await inSandbox(config, options.sandbox) : config, options),
      clientName: options.clientName ?? 'loopchart',
      ...(options.signal || options.timeoutMs !== undefined
        ? { initializationOptions: { ...(options.signal ? { signal: options.signal } : {}), ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}) } }
        : {}),
    });
  } catch (error) {
    throw new McpConnectionError(server, `MCP server "${server}" (${where}) could not be connected: ${errorMessage(error)}`, { cause: error });
  }
  try {
    return { server, client, tools: await client.tools() };
  } catch (error) {
    await client.close().catch(() => {});
    throw new McpConnectionError(server, `MCP server "${server}" (${where}) did not list its tools: ${errorMessage(error)}`, { cause: error });
  }
}

function transportFor(config: McpServerConfig, options: ConnectMcpToolsOptions): MCPClientConfig['transport'] {
  if (config.type === 'stdio') {
    return new StdioMCPTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      // Always an explicit environment: the AI SDK adds only HOME, LOGNAME, PATH, SHELL, TERM and USER to it.
      env: { ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      stderr: options.stderr ?? 'inherit',
    });
  }
  return { type: config.type, url: config.url, ...(config.headers ? { headers: config.headers } : {}) };
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
