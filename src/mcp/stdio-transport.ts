import { spawn, type ChildProcess, type IOType } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Stream } from 'node:stream';
import type { JSONRPCMessage, MCPTransport, MCPTransportSendOptions } from '@ai-sdk/mcp';
import { boundedLines } from './bounded-lines.js';
import { McpMessageTooLargeError } from './message-too-large.js';
import { killOnExit, OWN_PROCESS_GROUP, stopServerGroup } from './process-group.js';
import { McpServerExitedError } from './server-exited.js';

/** The longest stderr line passed on; the rest of a longer one is replaced by `…`. */
const MAX_STDERR_LINE_BYTES = 8 * 1024;

/** The environment variables a stdio server gets from this process, besides its own `env` (the AI SDK's set). */
const INHERITED_VARIABLES =
  process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export interface BoundedStdioTransportOptions {
  /** The program to start (looked up on `PATH`); no shell. */
  command: string;
  args?: string[];
  /** The server's environment besides {@link INHERITED_VARIABLES}. */
  env?: Record<string, string>;
  cwd?: string;
  /** Each line of the server's stderr (a longer one cut at 8 KiB, ending in `…`); or where spawn sends it (`'inherit'`, `'ignore'`, a stream or fd). */
  stderr: ((line: string) => void) | IOType | Stream | number;
  /** Told of each line on stdout that is not a JSON-RPC message (a server logging to stdout by mistake); the line is skipped. */
  onSkippedLine?: (note: string) => void;
  /** The largest message (one line on stdout) taken from the server; a larger one ends the connection. */
  maxMessageBytes: number;
}

/**
 * The MCP stdio transport, as the AI SDK's `StdioMCPTransport` (one JSON-RPC
 * message per line on the server's stdin and stdout, the same environment),
 * with bounds: a message (a line on stdout) longer than `maxMessageBytes` is
 * never held whole. Past the bound the server is stopped and `failure` says
 * why, so every request waiting on it fails (the AI SDK's transport buffers
 * such a line whole, copying it for each chunk). A line that is not a JSON-RPC
 * message is reported to `onSkippedLine` and skipped. stderr can be read line
 * by line (each bounded too) instead of passed on raw.
 *
 * @example
 * ```ts
 * const transport = new BoundedStdioTransport({ command: 'mcp-server-filesystem', args: ['.'], stderr: (line) => log(line), maxMessageBytes: 64 * 2 ** 20 });
 * const client = await createMCPClient({ transport });
 * ```
 */
export class BoundedStdioTransport implements MCPTransport {
  readonly supportsProtocolVersionDiscovery = true;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the connection ended other than by `close()`, if it did: the transport closed it itself (a message over the bound), or the server exited ({@link McpServerExitedError}). */
  failure: Error | undefined;
  private child: ChildProcess | undefined;
  /** The process started, kept after the connection ended (`child` is then undefined): what close() stops and closes. */
  private spawned: ChildProcess | undefined;
  /** close()'s work, once begun: every call waits for it. */
  private closing: Promise<void> | undefined;
  private closed = false;
  /** The server's exit, once `close` has begun it. */
  private stopping: Promise<void> | undefined;
  /** The requests sent with a signal and not yet answered, by id: each one's way to stop listening for its abort. */
  private readonly cancellable = new Map<string | number, () => void>();
  /** Unmarks the server's group as one to kill when this process exits (see {@link killOnExit}). */
  private unmarkKillOnExit: () => void = () => undefined;

  constructor(private readonly options: BoundedStdioTransportOptions) {}

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the stdio transport was already started'));
    const { stderr } = this.options;
    const child = spawn(this.options.command, this.options.args ?? [], {
      env: serverEnvironment(this.options.env),
      stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
      // A group of its own, so that stopping the server reaches what it started (npx starts the real server as its child).
      detached: OWN_PROCESS_GROUP,
      ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
    });
    this.child = child;
    this.spawned = child;
    this.unmarkKillOnExit = killOnExit(child);
    child.stdout!.on(
      'data',
      boundedLines(this.options.maxMessageBytes, {
        line: (line) => this.receive(line),
        tooLong: () => this.fail(new McpMessageTooLargeError(this.options.maxMessageBytes)),
      }),
    );
    if (typeof stderr === 'function') {
      const stderrLines = boundedLines(MAX_STDERR_LINE_BYTES, {
        line: (line) => stderr(line.toString('utf8').replace(/\r$/, '')),
        tooLong: (head) => stderr(`${head.toString('utf8')}…`),
      });
      child.stderr!.on('data', stderrLines);
      child.stderr!.on('error', () => undefined);
    }
    for (const stream of [child.stdin, child.stdout]) stream?.on('error', (error) => this.onerror?.(error));
    child.on('close', () => this.ended());
    // A server that exits by itself (a crash) leaves what it started whose stdio is elsewhere (a
    // helper started with stdio 'ignore'): its group is stopped now, while the group's id is still
    // its own, so that close() later (which finds no child) has stopped it too and waits for that.
    child.on('exit', (code, signal) => {
      // Exited by itself, not stopped by close(): the requests it leaves unanswered fail saying so.
      if (!this.closed) this.failure ??= new McpServerExitedError(code, signal);
      void (this.stopping ??= this.stopGroup(child));
    });
    let spawned = false;
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      // A failed spawn, or a failed kill later: never thrown.
      child.on('error', (error) => {
        const said = spawned ? error : spawnError(error, this.options.cwd);
        reject(said);
        this.onerror?.(said);
        this.ended();
      });
    });
  }

  /**
   * Writes the message on the server's stdin. A request sent with a signal
   * (a tool call the caller gave up, or one past its time) is cancelled when
   * the signal aborts before its answer came: the server is sent
   * `notifications/cancelled` for it, as MCP says a client cancels.
   */
  send(message: JSONRPCMessage, options?: MCPTransportSendOptions): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed) return Promise.reject(this.failure ?? new Error('the MCP server is not connected'));
    if (options?.signal && 'method' in message && 'id' in message && message.id !== undefined) this.cancelOnAbort(message.id, options.signal);
    return this.write(message);
  }

  private write(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed) return Promise.reject(this.failure ?? new Error('the MCP server is not connected'));
    return new Promise((resolve, reject) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else {
        stdin.once('drain', resolve);
        stdin.once('close', () => reject(this.failure ?? new Error('the MCP server closed its stdin')));
      }
    });
  }

  private cancelOnAbort(id: string | number, signal: AbortSignal): void {
    const cancel = () => {
      this.cancellable.delete(id);
      const reason: unknown = signal.reason;
      const said = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the request was given up';
      void this.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: said } }).catch(() => undefined);
    };
    if (signal.aborted) return;
    signal.addEventListener('abort', cancel, { once: true });
    this.cancellable.get(id)?.();
    this.cancellable.set(id, () => {
      this.cancellable.delete(id);
      signal.removeEventListener('abort', cancel);
    });
  }

  /**
   * Stops the server and whatever it started (its process group): SIGTERM,
   * and SIGKILL if any of it is still there after 2 s. Resolves once all of
   * it has exited (or, should even SIGKILL not end it, 2 s after that), so a
   * caller that exits next leaves no server behind; then closes its stderr, so
   * no pipe of it stays open (a process that left its group may hold one).
   * Every call waits for the same exit.
   */
  close(): Promise<void> {
    const child = this.spawned;
    if (!child) return Promise.resolve();
    return (this.closing ??= (async () => {
      if (!this.stopping) {
        this.closed = true;
        child.stdin?.destroy();
        child.stdout?.destroy();
        this.stopping = this.stopGroup(child);
        this.ended();
      }
      await this.stopping;
      // Read until now, for the server's last words. A process that left the server's group (a daemon)
      // may still hold it: it would be heard after close(), and its open pipe keep this process running.
      child.stderr?.destroy();
    })());
  }

  /** Stops the server's group; once stopped, it is no longer killed when this process exits. */
  private async stopGroup(child: ChildProcess): Promise<void> {
    await stopServerGroup(child);
    this.unmarkKillOnExit();
  }

  private receive(line: Buffer): void {
    if (this.closed) return;
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (!isJsonRpcMessage(message)) {
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      this.options.onSkippedLine?.(`skipped a line on stdout that is not a JSON-RPC message: ${shown}`);
      return;
    }
    // An answered request is no longer cancelled when its signal aborts.
    if (!('method' in message) && message.id !== undefined) this.cancellable.get(message.id)?.();
    try {
      this.onmessage?.(message);
    } catch (error) {
      // The client throws for a response to a request it never made: the server's fault, not this process's.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.failure = error;
    this.onerror?.(error);
    void this.close();
  }

  private ended(): void {
    if (this.child === undefined) return;
    for (const stopListening of [...this.cancellable.values()]) stopListening();
    this.child = undefined;
    this.closed = true;
    this.onclose?.();
  }
}

/** Why spawn failed: spawn blames the command (`spawn node ENOENT`) for a `cwd` that is not a directory. */
function spawnError(error: Error, cwd: string | undefined): Error {
  if (cwd === undefined) return error;
  try {
    if (statSync(cwd).isDirectory()) return error;
  } catch {
    // Missing or unreadable: not a directory the server can run in.
  }
  return new Error(`its cwd "${cwd}" is not a directory (${error.message})`, { cause: error });
}

/** The server's environment: its own `env` and the inherited variables it does not set (a `()` shell function is never passed on). */
function serverEnvironment(own: Record<string, string> | undefined): Record<string, string> {
  const environment = { ...own };
  for (const name of INHERITED_VARIABLES) {
    const value = process.env[name];
    if (name in environment || value === undefined || value.startsWith('()')) continue;
    environment[name] = value;
  }
  return environment;
}

/** Whether `value` has the shape of a JSON-RPC 2.0 request, notification, result or error. */
function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  const id = message.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (typeof message.method === 'string') return id === undefined || validId;
  if (!validId && !(id === undefined && 'error' in message)) return false;
  if ('result' in message) return typeof message.result === 'object' && message.result !== null && !Array.isArray(message.result);
  const error = message.error as Record<string, unknown> | undefined;
  return typeof error === 'object' && error !== null && typeof error.code === 'number' && typeof error.message === 'string';
}
