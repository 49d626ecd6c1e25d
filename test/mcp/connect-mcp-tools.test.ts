import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { connectMcpTools, McpConfigError, McpConnectionError, McpToolNameError, type McpServersConfig, type McpTools } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/mcp/http-server.js';
import { stdioFixture, waitUntilGone, type StdioFixture } from '../fixtures/mcp/stdio-fixture.js';
import { expectValidHistory, toolOutputs } from '../support/history.js';
import { nextEvent } from '../support/next-event.js';

const stamp = { id: 'call-1', name: 'mcp__fixture__stamp', input: { text: 'hello' } };

/** An agent whose scripted model calls the fixture's tool once, then answers; MCP tools ask before they run. */
function agentWith(mcp: McpTools) {
  const model = scriptedModel([{ toolCalls: [stamp] }, { text: 'Done.' }]);
  const agent = createAgent({ model, tools: mcp.tools, approval: { ask: ['mcp__*'] } });
  return { model, agent };
}

let http: FixtureHttpServer;
beforeAll(async () => {
  http = await startFixtureHttpServer();
});
afterAll(() => http.close());

const fixtures: StdioFixture[] = [];
const opened: McpTools[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((mcp) => mcp.close().catch(() => {})));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.remove()));
  http.calls.length = 0;
});

async function newStdioFixture(): Promise<StdioFixture> {
  const fixture = await stdioFixture();
  fixtures.push(fixture);
  return fixture;
}

async function connect(config: McpServersConfig, options?: Parameters<typeof connectMcpTools>[1]): Promise<McpTools> {
  const mcp = await connectMcpTools(config, options);
  opened.push(mcp);
  return mcp;
}

interface Transport {
  name: string;
  /** The config entry of a fresh fixture server, and what its server ran. */
  server(): Promise<{ entry: McpServersConfig['mcpServers'][string]; calls: () => Array<{ text: string }>; afterClose: () => Promise<void> }>;
}

const transports: Transport[] = [
  {
    name: 'stdio',
    async server() {
      const fixture = await newStdioFixture();
      return { entry: fixture.entry, calls: fixture.calls, afterClose: () => waitUntilGone(fixture.pid()) };
    },
  },
  {
    name: 'Streamable HTTP',
    async server() {
      return { entry: { type: 'http', url: http.url }, calls: () => http.calls, afterClose: async () => {} };
    },
  },
];

describe.each(transports)('an MCP tool over $name', (transport) => {
  it('asks for approval under its server-prefixed name; approved, it runs on the server and its result reaches the model', async () => {
    const server = await transport.server();
    const mcp = await connect({ mcpServers: { fixture: server.entry } });
    expect(Object.keys(mcp.tools)).toEqual(['mcp__fixture__stamp']);
    expect(mcp.toolNamesByServer).toEqual({ fixture: ['mcp__fixture__stamp'] });
    const { model, agent } = agentWith(mcp);

    const run = agent.run('Stamp hello.');
    const request = await nextEvent(agent, 'approval-request');
    expect(request).toMatchObject({ toolCallId: 'call-1', toolName: 'mcp__fixture__stamp', input: { text: 'hello' } });
    expect(server.calls()).toEqual([]);
    agent.approve('call-1');
    const result = await run;

    expect(result.outcome).toBe('completed');
    expect(server.calls()).toEqual([{ text: 'hello' }]);
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('stamped: hello');
    await expectValidHistory(result.messages);
    await agent.dispose();
    await mcp.close();
    await server.afterClose();
  });

  it('denied, it never runs on the server and the model is told', async () => {
    const server = await transport.server();
    const mcp = await connect({ mcpServers: { fixture: server.entry } });
    const { model, agent } = agentWith(mcp);

    const run = agent.run('Stamp hello.');
    await nextEvent(agent, 'approval-request');
    agent.deny('call-1', 'not today');
    const result = await run;

    expect(result.outcome).toBe('completed');
    expect(server.calls()).toEqual([]);
    expect(toolOutputs(result.messages)['call-1']).toEqual({ type: 'error-text', value: 'The user denied this tool call: not today' });
    expect(JSON.stringify(model.calls[1]?.prompt)).not.toContain('stamped');
    await agent.dispose();
    await mcp.close();
    await server.afterClose();
  });
});

describe('connectMcpTools', () => {
  it('close() ends the stdio server process, and a second close() is harmless', async () => {
    const fixture = await newStdioFixture();
    const mcp = await connect({ mcpServers: { fixture: fixture.entry } });
    const pid = fixture.pid();
    await mcp.close();
    await mcp.close();
    await waitUntilGone(pid);
  });

  it('is AsyncDisposable: leaving an `await using` block ends the stdio server process', async () => {
    const fixture = await newStdioFixture();
    {
      await using mcp = await connectMcpTools({ mcpServers: { fixture: fixture.entry } });
      expect(Object.keys(mcp.tools)).toEqual(['mcp__fixture__stamp']);
    }
    await waitUntilGone(fixture.pid());
  });

  it('connects stdio and HTTP servers together, and sends an HTTP server its configured headers', async () => {
    const fixture = await newStdioFixture();
    const mcp = await connect({ mcpServers: { local: fixture.entry, remote: { type: 'http', url: http.url, headers: { 'X-Fixture-Token': 'token-1' } } } });
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp__local__stamp', 'mcp__remote__stamp']);
    expect(http.headerValues('x-fixture-token')).toContain('token-1');
  });

  it('gives a stdio server only its configured env besides HOME, PATH and the like: nothing else of this process leaks', async () => {
    const fixture = await newStdioFixture();
    process.env.LOOPCHART_TEST_API_KEY = 'sk-must-not-leak';
    try {
      await connect({ mcpServers: { fixture: { ...fixture.entry, env: { GIVEN_TO_SERVER: '1' } } } });
    } finally {
      delete process.env.LOOPCHART_TEST_API_KEY;
    }
    const names = fixture.envNames();
    expect(names).toContain('GIVEN_TO_SERVER');
    expect(names).not.toContain('LOOPCHART_TEST_API_KEY');
    expect(names.filter((name) => !['GIVEN_TO_SERVER', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(name))).toEqual([]);
  });

  it('when one server cannot be started, closes the servers already connected and names the one that failed', async () => {
    const fixture = await newStdioFixture();
    const connecting = connectMcpTools({ mcpServers: { good: fixture.entry, broken: { command: '/nonexistent/mcp-server' } } });
    const error = await connecting.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toMatchObject({ server: 'broken' });
    expect((error as Error).message).toMatch(/^MCP server "broken" \(command "\/nonexistent\/mcp-server"\) could not be connected: .*ENOENT/);
    await waitUntilGone(fixture.pid());
  });

  it('names an HTTP server that cannot be reached', async () => {
    const closed = await startFixtureHttpServer();
    await closed.close();
    await expect(connectMcpTools({ mcpServers: { remote: { type: 'http', url: closed.url } } })).rejects.toThrow(
      new RegExp(`^MCP server "remote" \\(${closed.url.replace(/[.]/g, '\\.')}\\) could not be connected`),
    );
  });

  it('refuses two tools with the same name, naming both servers, and closes both', async () => {
    const one = await newStdioFixture();
    const two = await newStdioFixture();
    const connecting = connectMcpTools({ mcpServers: { one: one.entry, two: two.entry } }, { toolName: (_server, tool) => tool });
    await expect(connecting).rejects.toThrow(McpToolNameError);
    await expect(connecting).rejects.toThrow('two MCP tools would be named "stamp": tool "stamp" of server "one" and tool "stamp" of server "two"');
    await waitUntilGone(one.pid());
    await waitUntilGone(two.pid());
  });

  it('refuses an MCP tool named like one of the agent\'s other tools', async () => {
    await expect(
      connectMcpTools({ mcpServers: { fixture: { type: 'http', url: http.url } } }, { toolName: (_server, tool) => tool, reservedToolNames: ['read', 'stamp'] }),
    ).rejects.toThrow('tool "stamp" of MCP server "fixture" would be named "stamp", the name of one of the agent\'s other tools');
  });

  it('names a tool whose MCP name holds . and / so that providers take it, and the call still reaches the tool under its own name', async () => {
    const dotted = await startFixtureHttpServer({ toolName: 'notes.stamp/v2' });
    try {
      const mcp = await connect({ mcpServers: { fixture: { type: 'http', url: dotted.url } } });
      expect(Object.keys(mcp.tools)).toEqual(['mcp__fixture__notes_stamp_v2']);
      const model = scriptedModel([{ toolCalls: [{ ...stamp, name: 'mcp__fixture__notes_stamp_v2' }] }, { text: 'Done.' }]);
      const result = await createAgent({ model, tools: mcp.tools }).run('stamp hello');
      expect(result.outcome).toBe('completed');
      expect(dotted.calls).toEqual([{ text: 'hello' }]);
      expect(JSON.stringify(toolOutputs(result.messages)['call-1'])).toContain('stamped: hello');
    } finally {
      await dotted.close();
    }
  });

  it('validates the config before starting anything, naming the bad field', async () => {
    await expect(connectMcpTools({ mcpServers: { fs: { command: '' } } })).rejects.toThrow(McpConfigError);
    await expect(connectMcpTools({ mcpServers: { fs: { command: '' } } })).rejects.toThrow('mcpServers.fs.command: command must name a program to start');
  });
});
