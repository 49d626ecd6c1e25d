import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/mcp/http-server.js';
import { misbehavingFixture, stdioFixture, type MisbehavingFixture, type StdioFixture } from '../fixtures/mcp/stdio-fixture.js';
import { eventually, livePidsMarked } from '../support/process-marker.js';
import { buildCli, cleanEnv, runCli, startCli, waitFor } from '../cli/support/cli-process.js';
import { asJsonArray, tempDir, writeScript, type ScriptFile } from '../cli/support/scripts.js';

let dir: string;
let http: FixtureHttpServer;
beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
  http = await startFixtureHttpServer();
}, 60_000);
afterAll(() => http.close());

const fixtures: Array<StdioFixture | MisbehavingFixture> = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.remove()));
  http.calls.length = 0;
});

/** A config file with one misbehaving stdio server (`misbehaving-server.mjs`) named `name`. */
async function withMisbehavingServer(mode: Parameters<typeof misbehavingFixture>[0], name: string, extra: Record<string, unknown> = {}): Promise<{ fixture: MisbehavingFixture; config: string }> {
  const fixture = await misbehavingFixture(mode);
  fixtures.push(fixture);
  const config = path.join(dir, `${name}-${mode}.json`);
  await writeFile(config, JSON.stringify({ mcpServers: { [name]: { ...fixture.entry, ...extra } } }));
  return { fixture, config };
}

const stampsHello: ScriptFile = {
  prompt: 'Stamp hello.',
  tools: ['read'],
  turns: [{ toolCalls: [{ id: 'call-1', name: 'mcp__fixture__stamp', input: { text: 'hello' } }] }, { text: 'Done.' }],
};

async function withStdioServer(name: string): Promise<{ fixture: StdioFixture; config: string }> {
  const fixture = await stdioFixture();
  fixtures.push(fixture);
  const config = path.join(dir, name);
  await writeFile(config, JSON.stringify({ mcpServers: { fixture: fixture.entry } }));
  return { fixture, config };
}

/** Whether `pid` can still be signalled. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The server (in the sandbox, bubblewrap too) is gone: no process runs with its state directory on its command line. */
async function expectStopped(fixture: { stateDir: string }): Promise<void> {
  await expect(eventually(() => livePidsMarked(fixture.stateDir).length === 0)).resolves.toBe(true);
}

describe('loopchart run --mcp FILE', () => {
  it('with --yes, the script calls the stdio server\'s tool and gets its answer; the server stops with the run and never sees an API key', async () => {
    const { fixture, config } = await withStdioServer('stdio-yes.json');
    const script = await writeScript(dir, 'stamp-yes.json', stampsHello);
    const { code, stdout } = await runCli(['run', script, '--mcp', config, '--yes', '--events'], { env: cleanEnv({ OPENAI_API_KEY: 'sk-must-not-reach-mcp' }) });

    expect(code).toBe(0);
    const events = JSON.parse(asJsonArray(stdout)) as Array<{ type: string; toolCallId?: string; outcome?: string }>;
    // It asked (MCP tools need approval by default), and --yes approved.
    expect(events.find((event) => event.type === 'approval-request')).toMatchObject({ toolName: 'mcp__fixture__stamp', input: { text: 'hello' } });
    expect(JSON.stringify(events.find((event) => event.type === 'tool-result' && event.toolCallId === 'call-1'))).toContain('stamped: hello');
    expect(events.find((event) => event.type === 'run-end')).toMatchObject({ result: { outcome: 'completed' } });
    expect(fixture.calls()).toEqual([{ text: 'hello' }]);
    expect(fixture.envNames()).not.toContain('OPENAI_API_KEY');
    await expectStopped(fixture);
  });

  it('without --yes and without a terminal, the MCP tool asks and is denied: it never runs, and the events name it', async () => {
    const { fixture, config } = await withStdioServer('stdio-deny.json');
    const script = await writeScript(dir, 'stamp-deny.json', stampsHello);
    const { code, stdout, stderr } = await runCli(['run', script, '--mcp', config, '--events']);

    expect(code).toBe(0);
    expect(stderr).toContain('denied: mcp__fixture__stamp {"text":"hello"}: it needs approval and there is no terminal to ask');
    const events = JSON.parse(asJsonArray(stdout)) as Array<{ type: string; toolName?: string }>;
    expect(events.find((event) => event.type === 'approval-request')).toMatchObject({ toolName: 'mcp__fixture__stamp', input: { text: 'hello' } });
    expect(fixture.calls()).toEqual([]);
    await expectStopped(fixture);
  });

  it("a script's rule that allows the MCP tool lets it run without asking (over Streamable HTTP)", async () => {
    const config = path.join(dir, 'http.json');
    await writeFile(config, JSON.stringify({ mcpServers: { fixture: { type: 'http', url: http.url } } }));
    const script = await writeScript(dir, 'stamp-allowed.json', { ...stampsHello, approval: { allow: ['mcp__fixture__*'] } });
    const { code, stdout, stderr } = await runCli(['run', script, '--mcp', config, '--json']);

    expect(stderr).not.toContain('denied');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).outcome).toBe('completed');
    expect(http.calls).toEqual([{ text: 'hello' }]);
  });

  it('Ctrl+C in the middle of the run aborts it (exit 130) and stops the stdio server', async () => {
    const { fixture, config } = await withStdioServer('stdio-interrupt.json');
    const script = await writeScript(dir, 'stamp-stall.json', {
      ...stampsHello,
      approval: { allow: ['mcp__*'] },
      turns: [stampsHello.turns![0]!, { text: ['Working ', 'on it'], stall: true }],
    });
    const cli = startCli(['run', script, '--mcp', config, '--json']);
    await waitFor(() => fixture.calls().length > 0, 'the MCP tool call');
    // Only the CLI gets the signal (a terminal's Ctrl+C would reach the server too): closing the client must stop it.
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;

    expect(code).toBe(130);
    expect(JSON.parse(stdout).outcome).toBe('aborted');
    await expectStopped(fixture);
  });

  it('a tool call the server never answers fails at its callTimeoutMs as an error the model reads, the run goes on, and the call is cancelled', async () => {
    const { fixture, config } = await withMisbehavingServer('hangs-calls', 'slow', { callTimeoutMs: 500 });
    const script = await writeScript(dir, 'wait-timeout.json', {
      prompt: 'Wait.',
      tools: ['read'],
      approval: { allow: ['mcp__*'] },
      turns: [{ toolCalls: [{ id: 'call-1', name: 'mcp__slow__wait', input: {} }] }, { text: 'Gave up waiting.' }],
    });
    const { code, stdout } = await runCli(['run', script, '--mcp', config, '--events']);

    expect(code).toBe(0);
    const events = JSON.parse(asJsonArray(stdout)) as Array<{ type: string; toolCallId?: string }>;
    expect(JSON.stringify(events.find((event) => event.type === 'tool-result' && event.toolCallId === 'call-1'))).toContain(
      'MCP server \\"slow\\" did not answer the call of its tool \\"wait\\" within 500 ms (callTimeoutMs)',
    );
    expect(events.find((event) => event.type === 'run-end')).toMatchObject({ result: { outcome: 'completed', text: 'Gave up waiting.' } });
    expect(fixture.params('notifications/cancelled')).toMatchObject({ requestId: expect.any(Number) });
    await expectStopped(fixture);
  });

  it('a server that ignores SIGTERM is killed before the CLI exits, not left running after it (unsandboxed: nothing else would end it)', async () => {
    const { fixture, config } = await withMisbehavingServer('ignores-sigterm', 'stubborn');
    const script = await writeScript(dir, 'quick-stubborn.json', { prompt: 'Hi.', turns: [{ text: 'Hello.' }] });
    try {
      const { code } = await runCli(['run', script, '--mcp', config, '--no-sandbox']);

      expect(code).toBe(0);
      // Gone as the CLI exits: without the wait it would run for ever, as bubblewrap's --die-with-parent is not there to end it.
      expect(livePidsMarked(fixture.stateDir).filter(isAlive)).toEqual([]);
    } finally {
      for (const pid of livePidsMarked(fixture.stateDir)) process.kill(pid, 'SIGKILL');
    }
  });

  it('SIGTERM in the middle of the run aborts it as Ctrl+C does (exit 143), stops the stdio server and removes the temporary workspace', async () => {
    const { fixture, config } = await withStdioServer('stdio-sigterm.json');
    const script = await writeScript(dir, 'stamp-stall-term.json', {
      ...stampsHello,
      approval: { allow: ['mcp__*'] },
      turns: [stampsHello.turns![0]!, { text: ['Working ', 'on it'], stall: true }],
    });
    const cli = startCli(['run', script, '--mcp', config]);
    await waitFor(() => fixture.calls().length > 0 && /workspace: (.+)\n/.test(cli.stderr), 'the MCP tool call');
    const workspace = /workspace: (.+)\n/.exec(cli.stderr)![1]!;
    expect(existsSync(workspace)).toBe(true);
    cli.child.kill('SIGTERM');
    const { code, signal, stderr } = await cli.done;

    expect({ code, signal }).toEqual({ code: 143, signal: null });
    expect(stderr).toContain('loopchart: terminated (SIGTERM), stopping the run');
    expect(stderr).toMatch(/^aborted · /m);
    expect(existsSync(workspace)).toBe(false);
    await expectStopped(fixture);
  });

  it('${BRAVE_API_KEY} in a server\'s env is the value the CLI started with, though the CLI withdrew every *_API_KEY from its own environment', async () => {
    const fixture = await stdioFixture();
    fixtures.push(fixture);
    const config = path.join(dir, 'stdio-brave.json');
    await writeFile(config, JSON.stringify({ mcpServers: { fixture: { ...fixture.entry, env: { BRAVE_API_KEY: '${BRAVE_API_KEY}' } } } }));
    const script = await writeScript(dir, 'stamp-brave.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config, '--yes'], { env: cleanEnv({ BRAVE_API_KEY: 'brave-key-for-the-server', OPENAI_API_KEY: 'sk-must-not-reach-mcp' }) });

    expect(stderr).not.toContain('is not set');
    expect(code).toBe(0);
    expect(fixture.envNames()).toContain('BRAVE_API_KEY');
    expect(fixture.envNames()).not.toContain('OPENAI_API_KEY');
  });

  it("${NAME} of the run's own API key is refused (exit 2) with a message that says why, not that it is unset", async () => {
    const fixture = await stdioFixture();
    fixtures.push(fixture);
    const config = path.join(dir, 'stdio-own-key.json');
    await writeFile(config, JSON.stringify({ mcpServers: { fixture: { ...fixture.entry, env: { TOKEN: '${LLM_KEY:-fallback}' } } } }));
    const script = await writeScript(dir, 'stamp-own-key.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config, '--api-key-env', 'LLM_KEY'], { env: cleanEnv({ LLM_KEY: 'the-run-s-own-key' }) });

    expect(code).toBe(2);
    expect(stderr).toContain("mcpServers.fixture.env.TOKEN: ${LLM_KEY} holds the run's own API key, which loopchart run never hands to an MCP server");
    expect(stderr).not.toContain('the-run-s-own-key');
    expect(fixture.calls()).toEqual([]);
  });

  it('an invalid config is a usage error (exit 2) naming the field', async () => {
    const config = path.join(dir, 'invalid.json');
    await writeFile(config, JSON.stringify({ mcpServers: { fixture: { command: 'x', args: 'not-a-list' } } }));
    const script = await writeScript(dir, 'stamp-invalid.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config]);

    expect(code).toBe(2);
    expect(stderr).toContain(`--mcp: Invalid MCP servers config ${config}`);
    expect(stderr).toContain('mcpServers.fixture.args: Invalid input: expected array, received string');
  });

  it('a server that cannot be started fails the run before it starts (exit 1), naming the server', async () => {
    const config = path.join(dir, 'broken.json');
    await writeFile(config, JSON.stringify({ mcpServers: { broken: { command: '/nonexistent/mcp-server' } } }));
    const script = await writeScript(dir, 'stamp-broken.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config]);

    expect(code).toBe(1);
    expect(stderr).toContain('loopchart: MCP server "broken" (command "/nonexistent/mcp-server") could not be connected');
  });

  it('Ctrl+C while a server does not answer the handshake ends the CLI at once (exit 130) and stops the server', async () => {
    const { fixture, config } = await withMisbehavingServer('silent', 'mute', { connectTimeoutMs: 600_000 });
    const script = await writeScript(dir, 'stamp-mute.json', stampsHello);
    const cli = startCli(['run', script, '--mcp', config, '--json']);
    await waitFor(() => fixture.requested('initialize'), 'the handshake to be sent');
    cli.child.kill('SIGINT');
    const { code, stderr } = await cli.done;

    expect(code).toBe(130);
    expect(stderr).toContain('interrupted before the run started');
    await expectStopped(fixture);
  });

  it('Ctrl+C while a server does not list its tools ends the CLI at once (exit 130) and stops the server', async () => {
    const { fixture, config } = await withMisbehavingServer('no-tools-list', 'unlisted', { connectTimeoutMs: 600_000 });
    const script = await writeScript(dir, 'stamp-unlisted.json', stampsHello);
    const cli = startCli(['run', script, '--mcp', config, '--json']);
    await waitFor(() => fixture.requested('tools/list'), 'the tools to be asked for');
    cli.child.kill('SIGINT');
    const { code } = await cli.done;

    expect(code).toBe(130);
    await expectStopped(fixture);
  });

  it('a server that never answers fails the run before it starts (exit 1) once its connectTimeoutMs has passed, naming it', async () => {
    const { fixture, config } = await withMisbehavingServer('silent', 'mute', { connectTimeoutMs: 1_000 });
    const script = await writeScript(dir, 'stamp-timeout.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config]);

    expect(code).toBe(1);
    expect(stderr).toContain(`loopchart: MCP server "mute" (command "${process.execPath}") could not be connected: no answer within 1000 ms (connectTimeoutMs)`);
    await expectStopped(fixture);
  });

  it('a 200 MB tools/list line is refused at the 64 MiB message bound: exit 1, naming the server, and the server is stopped', async () => {
    const { fixture, config } = await withMisbehavingServer('huge-tools-list', 'huge');
    const script = await writeScript(dir, 'stamp-huge.json', stampsHello);
    const { code, stderr } = await runCli(['run', script, '--mcp', config], { timeoutMs: 60_000 });

    expect(code).toBe(1);
    expect(stderr).toContain(
      `loopchart: MCP server "huge" (command "${process.execPath}") did not list its tools: the server sent a message over 64 MiB (maxMessageBytes): its connection was closed`,
    );
    await expectStopped(fixture);
  });

  it("a server's stderr reaches the terminal line by line, prefixed with its name and with its control characters made visible", async () => {
    const { config } = await withMisbehavingServer('noisy', 'noisy');
    const script = await writeScript(dir, 'quick-noisy.json', { prompt: 'Hi.', turns: [{ text: 'Hello.' }] });
    const { code, stderr } = await runCli(['run', script, '--mcp', config]);

    expect(code).toBe(0);
    expect(stderr).toContain('mcp noisy: starting \\x1b[31mred\\x1b]0;title\\x07 server\n');
    expect(stderr).toContain('mcp noisy: skipped a line on stdout that is not a JSON-RPC message: Server listening on stdio\n');
    expect(stderr).not.toContain('\u001b');
  });
});
