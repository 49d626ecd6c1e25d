import { asSchema } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent, type AgentEvent } from '../../src/index.js';
import { connectMcpTools, McpConfigError, McpConnectionError, type McpTools } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { cleanUpMisbehavingFixture, misbehavingFixture, processIsGone, type MisbehavingFixture, type MisbehavingMode } from '../fixtures/mcp/stdio-fixture.js';
import { startFixtureHttpServer } from '../fixtures/mcp/http-server.js';
import { toolOutputs } from '../support/history.js';

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const callOptions = { toolCallId: 'call-1', messages: [], context: {} };

const fixtures: MisbehavingFixture[] = [];
const opened: McpTools[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((mcp) => mcp.close().catch(() => {})));
  for (const fixture of fixtures.splice(0)) await cleanUpMisbehavingFixture(fixture);
});

async function misbehaving(mode: MisbehavingMode): Promise<MisbehavingFixture> {
  const fixture = await misbehavingFixture(mode);
  fixtures.push(fixture);
  return fixture;
}

async function connect(...args: Parameters<typeof connectMcpTools>): Promise<McpTools> {
  const mcp = await connectMcpTools(...args);
  opened.push(mcp);
  return mcp;
}

describe('a tool result the server marks as an error', () => {
  it('is an error result for the run (the tool-result event, the model\'s answer), with the server\'s text', async () => {
    const fixture = await misbehaving('error-result');
    const mcp = await connect({ mcpServers: { files: fixture.entry } }, { stderr: 'ignore' });
    const model = scriptedModel([{ toolCalls: [{ id: 'call-1', name: 'mcp__files__fail', input: {} }] }, { text: 'Done.' }]);
    const agent = createAgent({ model, tools: mcp.tools });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));

    const result = await agent.run('Read the file.');
    await agent.dispose();

    expect(result.outcome).toBe('completed');
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ toolName: 'mcp__files__fail', isError: true });
    expect(toolOutputs(result.messages)['call-1']).toEqual({ type: 'error-text', value: 'file not found' });
  });
});

describe('a tools/list the agent cannot use as it is', () => {
  it('every page of a paged list is read', async () => {
    const fixture = await misbehaving('paged-tools');
    const mcp = await connect({ mcpServers: { paged: fixture.entry } }, { stderr: 'ignore' });
    expect(Object.keys(mcp.tools)).toEqual(['mcp__paged__one', 'mcp__paged__two']);
  });

  it('two tools of one server with the same name are refused, naming the server and the tool, not one silently dropped', async () => {
    const fixture = await misbehaving('same-name-tools');
    const error = await rejection(connect({ mcpServers: { web: fixture.entry } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toMatchObject({ server: 'web' });
    expect((error as Error).message).toBe(`MCP server "web" (command "${process.execPath}") listed tools an agent cannot be given: two of its tools are named "search"`);
  });

  it('a tool whose inputSchema is not an object schema is refused at connect, naming it, not left for the provider to refuse the run', async () => {
    const fixture = await misbehaving('string-schema');
    const error = await rejection(connect({ mcpServers: { counter: fixture.entry } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toBe(
      `MCP server "counter" (command "${process.execPath}") listed tools an agent cannot be given: its tool "count" takes "string" (inputSchema.type), not an object as MCP says a tool's input is`,
    );
  });

  it('an inputSchema without a type is taken as the object schema MCP says it is: the model is given type object, and the call reaches the tool', async () => {
    const fixture = await misbehaving('untyped-schema');
    const mcp = await connect({ mcpServers: { echo: fixture.entry } }, { stderr: 'ignore' });
    const schema = await asSchema(mcp.tools.mcp__echo__echo!.inputSchema).jsonSchema;
    expect(schema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    const output = await mcp.tools.mcp__echo__echo!.execute!({ text: 'hi' }, callOptions);
    expect(output).toMatchObject({ content: [{ type: 'text', text: '{"text":"hi"}' }] });
  });
});

describe('a stdio server that exits by itself', () => {
  it('at start: connecting fails saying it exited and with what code, not that a request was sent from a closed client', async () => {
    const fixture = await misbehaving('exits-at-start');
    const error = await rejection(connect({ mcpServers: { broken: fixture.entry } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toBe(`MCP server "broken" (command "${process.execPath}") could not be connected: the server exited with code 3`);
  });

  it('in the middle of a call: the call fails naming the server, the tool and the exit code, and so does a later call', async () => {
    const fixture = await misbehaving('dies-mid-call');
    const mcp = await connect({ mcpServers: { crashy: fixture.entry } }, { stderr: 'ignore', callTimeoutMs: 600_000 });
    const crash = mcp.tools.mcp__crashy__crash!;
    const first = await rejection(Promise.resolve(crash.execute!({}, callOptions)));
    expect((first as Error).message).toBe('MCP server "crashy" could not answer the call of its tool "crash": the server exited with code 7');
    const later = await rejection(Promise.resolve(crash.execute!({}, callOptions)));
    expect((later as Error).message).toBe('MCP server "crashy" could not answer the call of its tool "crash": the server exited with code 7');
  });
});

describe('a stdio server that cannot be started', () => {
  it('for a cwd that does not exist: the error names the cwd, not the command, which does exist', async () => {
    const fixture = await misbehaving('noisy');
    const cwd = `${fixture.stateDir}/missing`;
    const error = await rejection(connect({ mcpServers: { lost: { ...fixture.entry, cwd } } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toBe(`MCP server "lost" (command "${process.execPath}") could not be connected: its cwd "${cwd}" is not a directory (spawn ${process.execPath} ENOENT)`);
  });

  it("in the sandbox: what stopped it is an McpConnectionError naming the server, not the sandbox's bare error", async () => {
    const fixture = await misbehaving('noisy');
    const cwd = `${fixture.stateDir}/missing`;
    const error = await rejection(connect({ mcpServers: { boxed: { ...fixture.entry, cwd } } }, { stderr: 'ignore', sandbox: 'bubblewrap' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toMatchObject({ server: 'boxed' });
    // Where bubblewrap works, the missing directory; where it does not, that.
    expect((error as Error).message).toMatch(
      new RegExp(`^MCP server "boxed" \\(command "${process.execPath}"\\) could not be started in the sandbox: The (sandbox's workspace ${cwd} is not an existing directory|bubblewrap sandbox cannot be used: .+)$`),
    );
  });
});

describe('an HTTP server that cannot be reached', () => {
  it("is refused with the network's own words, not only fetch failed", async () => {
    const gone = await startFixtureHttpServer();
    await gone.close();
    const error = await rejection(connect({ mcpServers: { remote: { type: 'http', url: gone.url } } }));
    expect(error).toBeInstanceOf(McpConnectionError);
    const port = new URL(gone.url).port;
    expect((error as Error).message).toBe(`MCP server "remote" (${gone.url}) could not be connected: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`);
  });
});

describe('an answer that is not what MCP says', () => {
  it('a tool list with a tool without an inputSchema is refused saying which field, not only that the answer could not be parsed', async () => {
    const fixture = await misbehaving('no-input-schema');
    const error = await rejection(connect({ mcpServers: { sloppy: fixture.entry } }, { stderr: 'ignore' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toBe(
      `MCP server "sloppy" (command "${process.execPath}") did not list its tools: Failed to parse server response (tools.0.inputSchema: Invalid input: expected object, received undefined)`,
    );
  });

  it('a tool call answered with something that is not a tool result fails saying what is missing', async () => {
    const fixture = await misbehaving('not-a-result');
    const mcp = await connect({ mcpServers: { odd: fixture.entry } }, { stderr: 'ignore' });
    const error = await rejection(Promise.resolve(mcp.tools.mcp__odd__odd!.execute!({}, callOptions)));
    expect((error as Error).message).toBe('Failed to parse server response (content: Invalid input: expected array, received undefined)');
  });
});

describe('closing', () => {
  it("close() closes the server's stderr too: a process that left the server's group and kept it is not heard after, and no pipe stays open", async () => {
    const fixture = await misbehaving('escapes-group');
    const lines: string[] = [];
    const mcp = await connect({ mcpServers: { daemon: fixture.entry } }, { stderr: (line) => lines.push(line) });
    await vi.waitFor(() => expect(lines).toContain('still here'), { timeout: 30_000 });
    await mcp.close();
    // It writes on until a write fails: it is gone once the pipe it writes into is closed.
    const escaped = fixture.childPid()!;
    await vi.waitFor(() => expect(processIsGone(escaped)).toBe(true), { timeout: 30_000 });
  });
});

describe("connectMcpTools' own bounds", () => {
  it('are refused, naming each, before anything starts, when they are not positive whole numbers a timer can wait: not cut to 1 ms or left unbounded', async () => {
    const fixture = await misbehaving('noisy');
    const error = await rejection(
      connect({ mcpServers: { fine: fixture.entry } }, { stderr: 'ignore', timeoutMs: -1, callTimeoutMs: '60s' as unknown as number, maxMessageBytes: Number.NaN }),
    );
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).issues).toEqual([
      { path: 'timeoutMs', message: 'timeoutMs must be a positive number of milliseconds' },
      { path: 'callTimeoutMs', message: 'Invalid input: expected number, received string' },
      { path: 'maxMessageBytes', message: 'Invalid input: expected number, received NaN' },
    ]);
    expect(fixture.pid()).toBeUndefined();
  });
});
