import { z } from 'zod';
import { MAX_TIMER_MS } from '../core/max-timer-ms.js';

/** A server's name: the key under `mcpServers`, and the middle of its tools' names (`mcp__<server>__<tool>`). */
const serverNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a server name is 1-64 letters, digits, dashes or underscores (it becomes part of its tools\' names)');

const stringMap = z.record(z.string(), z.string());

/** A time limit called `name`: a positive whole number of milliseconds a timer can wait. */
const milliseconds = (name: string) =>
  z
    .number()
    .int()
    .positive(`${name} must be a positive number of milliseconds`)
    .max(MAX_TIMER_MS, `${name} must be at most ${MAX_TIMER_MS} ms (about 24.8 days)`)
    .optional();

const bytes = (name: string) => z.number().int().positive(`${name} must be a positive number of bytes`).optional();

/** loopchart's own bounds on one server, for any transport (other clients ignore them). */
const boundFields = {
  /** How long the server gets to start (stdio), answer the MCP handshake and list its tools. */
  connectTimeoutMs: milliseconds('connectTimeoutMs'),
  /** How long one call of one of the server's tools may take before it fails (an error the model reads) and the request is cancelled. */
  callTimeoutMs: milliseconds('callTimeoutMs'),
  /** The largest message taken from the server (a line on stdout, an HTTP body or one event of a stream); a larger one closes the connection. */
  maxMessageBytes: bytes('maxMessageBytes'),
};

/** `connectMcpTools`' own bounds, for every server whose entry sets none. */
const connectBoundsSchema = z.object({ timeoutMs: milliseconds('timeoutMs'), callTimeoutMs: milliseconds('callTimeoutMs'), maxMessageBytes: bytes('maxMessageBytes') });

/** A server run as a child process that speaks MCP on its stdin and stdout. */
const stdioServerSchema = z.strictObject({
  type: z.literal('stdio'),
  /** The program to start (looked up on `PATH`); no shell. */
  command: z.string().min(1, 'command must name a program to start'),
  args: z.array(z.string()).optional(),
  /** The server's whole environment besides HOME, LOGNAME, PATH, SHELL, TERM and USER: nothing else of this process's environment is passed on. */
  env: stringMap.optional(),
  /** The directory the server runs in. */
  cwd: z.string().min(1).optional(),
  ...boundFields,
});

/** A server reached over HTTP: `http` is Streamable HTTP, `sse` the older HTTP+SSE transport. */
const httpServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']),
  url: z.url({
    protocol: /^https?$/,
    error: (issue) => (issue.input === undefined ? 'url is required: the server\'s MCP endpoint, e.g. http://127.0.0.1:3000/mcp' : 'url must be an http or https URL'),
  }),
  headers: stringMap.optional(),
  ...boundFields,
});

/** An entry without `type` is a stdio server (Claude Desktop's files), or with a `url` and no `command` a Streamable HTTP one (Cursor's). */
function withType(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'type' in value) return value;
  return { type: 'url' in value && !('command' in value) ? 'http' : 'stdio', ...value };
}

const serverSchema = z.preprocess(
  withType,
  z.discriminatedUnion('type', [stdioServerSchema, httpServerSchema], {
    error: (issue) =>
      issue.code === 'invalid_union' ? `type must be "stdio" (or left out, with a command), "http" or "sse", got ${JSON.stringify((issue.input as { type?: unknown } | undefined)?.type)}` : undefined,
  }),
);

/**
 * The `mcpServers` file as Claude Desktop, Claude Code and Cursor write it:
 * each server by name, either a command to start (stdio) or a URL (`type:
 * "http"`). Other top-level keys of such a file are ignored; an unknown key
 * inside a server's entry is an error (a `"disabled": true` must not start
 * the server silently).
 */
export const mcpServersConfigSchema = z.looseObject({
  mcpServers: z.record(serverNameSchema, serverSchema, {
    error: (issue) => (issue.input === undefined ? 'mcpServers is required: an object of servers by name' : undefined),
  }),
});

export type McpServersConfig = z.input<typeof mcpServersConfigSchema>;
/** One server's entry, validated: stdio entries carry `type: 'stdio'`. */
export type McpServerConfig = z.output<typeof serverSchema>;
export type McpStdioServerConfig = z.output<typeof stdioServerSchema>;
export type McpHttpServerConfig = z.output<typeof httpServerSchema>;

/** An invalid MCP servers config: each issue names the field's path, e.g. `mcpServers.fs.command`. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
  constructor(
    /** Where the config came from: a file name, or `mcpServers config`. */
    readonly source: string,
    readonly issues: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(`Invalid MCP servers config ${source}:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`);
  }
}

/**
 * Checks `connectMcpTools`' `timeoutMs`, `callTimeoutMs` and `maxMessageBytes`
 * as a server's own are checked: a timer cuts a delay that is not a whole
 * number from 0 to 2^31 - 1 to 1 ms, and a `maxMessageBytes` that is not a
 * number bounds nothing.
 *
 * @example
 * checkConnectBounds({ callTimeoutMs: 120_000 }); // fine
 * checkConnectBounds({ callTimeoutMs: 0 }); // throws McpConfigError: callTimeoutMs must be a positive number of milliseconds
 * @throws McpConfigError naming every bad option.
 */
export function checkConnectBounds(options: { timeoutMs?: unknown; callTimeoutMs?: unknown; maxMessageBytes?: unknown }): void {
  const { timeoutMs, callTimeoutMs, maxMessageBytes } = options;
  const parsed = connectBoundsSchema.safeParse({ timeoutMs, callTimeoutMs, maxMessageBytes });
  if (!parsed.success) throw new McpConfigError('options of connectMcpTools', issuesOf(parsed.error));
}

/**
 * Validates an `mcpServers` config and returns its servers by name.
 *
 * @example
 * ```ts
 * const servers = parseMcpServersConfig({ mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } });
 * servers.fs; // { type: 'stdio', command: 'npx', args: [...] }
 * ```
 * @throws McpConfigError naming every bad field, e.g. `mcpServers.fs.command: ...`.
 */
export function parseMcpServersConfig(value: unknown, source = 'mcpServers config'): Record<string, McpServerConfig> {
  const parsed = mcpServersConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data.mcpServers;
  throw new McpConfigError(source, issuesOf(parsed.error));
}

/** A zod error's issues, each with its path. */
function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map((key) => String(key)).join('.') : '(config)',
    // A bad server name is reported by zod as "Invalid key in record"; its own message says what a name may be.
    message: issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message,
  }));
}
