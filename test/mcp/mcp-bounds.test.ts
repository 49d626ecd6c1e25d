import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectMcpTools, McpConnectionError } from '../../src/mcp/index.js';
import { cleanUpMisbehavingFixture, misbehavingFixture, processIsGone, type MisbehavingFixture } from '../fixtures/mcp/stdio-fixture.js';

const fixtures: MisbehavingFixture[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await cleanUpMisbehavingFixture(fixture);
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

async function misbehaving(mode: Parameters<typeof misbehavingFixture>[0]): Promise<MisbehavingFixture> {
  const fixture = await misbehavingFixture(mode);
  fixtures.push(fixture);
  return fixture;
}

/** An HTTP server on 127.0.0.1 that answers every request with `handle`. */
async function httpServer(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('connecting to an MCP server is bounded', () => {
  it('a stdio server that never answers the handshake fails within its connectTimeoutMs, named, and is stopped', async () => {
    const fixture = await misbehaving('silent');
    const error = await rejection(connectMcpTools({ mcpServers: { mute: { ...fixture.entry, connectTimeoutMs: 1_000 } } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toMatchObject({ server: 'mute' });
    expect((error as Error).message).toBe(`MCP server "mute" (command "${process.execPath}") could not be connected: no answer within 1000 ms (connectTimeoutMs)`);
  });

  it('the timeout covers listing the tools too, and the caller\'s signal stops it at any point', async () => {
    const fixture = await misbehaving('no-tools-list');
    const timedOut = await rejection(connectMcpTools({ mcpServers: { slow: { ...fixture.entry, connectTimeoutMs: 1_000 } } }, { stderr: 'ignore' }));
    expect((timedOut as Error).message).toBe(`MCP server "slow" (command "${process.execPath}") did not list its tools: no answer within 1000 ms (connectTimeoutMs)`);

    const second = await misbehaving('no-tools-list');
    const stop = new AbortController();
    const connecting = rejection(connectMcpTools({ mcpServers: { slow: second.entry } }, { signal: stop.signal, stderr: 'ignore' }));
    while (!second.requested('tools/list')) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    const error = await connecting;
    expect((error as Error).message).toBe(`MCP server "slow" (command "${process.execPath}") did not list its tools: connecting was stopped`);
  });

  it('a stdio server whose message runs past maxMessageBytes is refused at the bound and stopped', async () => {
    const fixture = await misbehaving('huge-tools-list');
    const error = await rejection(connectMcpTools({ mcpServers: { huge: { ...fixture.entry, maxMessageBytes: 2 ** 20 } } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toBe(
      `MCP server "huge" (command "${process.execPath}") did not list its tools: the server sent a message over 1 MiB (maxMessageBytes): its connection was closed`,
    );
  });

  it('an HTTP server that never answers fails within connectTimeoutMs', async () => {
    const url = await httpServer(() => {});
    const error = await rejection(connectMcpTools({ mcpServers: { remote: { type: 'http', url, connectTimeoutMs: 1_000 } } }));
    expect((error as Error).message).toBe(`MCP server "remote" (${url}) could not be connected: no answer within 1000 ms (connectTimeoutMs)`);
  });

  it('an HTTP server whose answer runs past maxMessageBytes is refused at the bound', async () => {
    const url = await httpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    const error = await rejection(connectMcpTools({ mcpServers: { remote: { type: 'http', url, maxMessageBytes: 2 ** 20 } } }));
    expect((error as Error).message).toBe(`MCP server "remote" (${url}) could not be connected: the server sent a message over 1 MiB (maxMessageBytes): its connection was closed`);
  });

  it('an HTTP server whose event stream sends one event past maxMessageBytes is refused at the bound, not left to time out', async () => {
    const url = await httpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: message\ndata: ');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    const error = await rejection(connectMcpTools({ mcpServers: { remote: { type: 'http', url, maxMessageBytes: 2 ** 20, connectTimeoutMs: 600_000 } } }));
    expect((error as Error).message).toBe(`MCP server "remote" (${url}) could not be connected: the server sent a message over 1 MiB (maxMessageBytes): its connection was closed`);
  });
});

describe('a tool call is bounded', () => {
  const callOptions = (abortSignal?: AbortSignal) => ({ toolCallId: 'call-1', messages: [], context: {}, ...(abortSignal ? { abortSignal } : {}) });

  it('a call the server never answers fails within its callTimeoutMs, named, and its request is cancelled toward the server', async () => {
    const fixture = await misbehaving('hangs-calls');
    const mcp = await connectMcpTools({ mcpServers: { slow: { ...fixture.entry, callTimeoutMs: 300 } } }, { stderr: 'ignore' });
    try {
      const error = await rejection(Promise.resolve(mcp.tools.mcp__slow__wait!.execute!({}, callOptions())));
      expect((error as Error).message).toBe('MCP server "slow" did not answer the call of its tool "wait" within 300 ms (callTimeoutMs); the call was cancelled');
      await vi.waitFor(() => expect(fixture.params('notifications/cancelled')).toMatchObject({ reason: (error as Error).message }), { timeout: 30_000 });
      // The server reads its messages in order: once it has the cancellation, it has the call it cancels.
      const call = fixture.params('tools/call');
      expect(call).toMatchObject({ name: 'wait' });
      expect(fixture.params('notifications/cancelled')!.requestId).toEqual(expect.any(Number));
    } finally {
      await mcp.close();
    }
  });

  it("the call's abortSignal gives it up at once and cancels its request, whatever its callTimeoutMs", async () => {
    const fixture = await misbehaving('hangs-calls');
    const mcp = await connectMcpTools({ mcpServers: { slow: fixture.entry } }, { callTimeoutMs: 600_000, stderr: 'ignore' });
    try {
      const stop = new AbortController();
      const calling = rejection(Promise.resolve(mcp.tools.mcp__slow__wait!.execute!({}, callOptions(stop.signal))));
      await vi.waitFor(() => expect(fixture.requested('tools/call')).toBe(true), { timeout: 30_000 });
      stop.abort(new Error('the run was aborted'));
      expect(await calling).toBeInstanceOf(Error);
      await vi.waitFor(() => expect(fixture.params('notifications/cancelled')).toMatchObject({ reason: 'the run was aborted' }), { timeout: 30_000 });
    } finally {
      await mcp.close();
    }
  });
});

describe('closing a stdio server', () => {
  it('close() resolves once a server that ignores SIGTERM has exited: it is killed after the grace period, not left running', async () => {
    const fixture = await misbehaving('ignores-sigterm');
    const mcp = await connectMcpTools({ mcpServers: { stubborn: fixture.entry } }, { stderr: 'ignore' });
    const pid = fixture.pid()!;
    await mcp.close();
    expect(processIsGone(pid)).toBe(true);
  });

  it.runIf(process.platform !== 'win32')('close() stops what the server started too (npx starts the real server as its child), even a process SIGTERM does not end', async () => {
    const fixture = await misbehaving('starts-child');
    const mcp = await connectMcpTools({ mcpServers: { launcher: fixture.entry } }, { stderr: 'ignore' });
    const child = fixture.childPid()!;
    expect(processIsGone(child)).toBe(false);
    await mcp.close();
    expect(processIsGone(fixture.pid()!)).toBe(true);
    expect(processIsGone(child)).toBe(true);
  });
});

describe('what a stdio server writes besides its messages', () => {
  it('each stderr line goes to the stderr function with the server\'s name, and a line on stdout that is not a message is skipped and reported there', async () => {
    const fixture = await misbehaving('noisy');
    const lines: Array<{ line: string; server: string }> = [];
    const mcp = await connectMcpTools({ mcpServers: { noisy: fixture.entry } }, { stderr: (line, server) => lines.push({ line, server }) });
    await mcp.close();
    expect(lines).toEqual(
      expect.arrayContaining([
        { line: 'starting \u001b[31mred\u001b]0;title\u0007 server', server: 'noisy' },
        { line: 'skipped a line on stdout that is not a JSON-RPC message: Server listening on stdio', server: 'noisy' },
      ]),
    );
  });
});
