import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMcpServersConfig, McpConfigError, parseMcpServersConfig } from '../../src/mcp/index.js';

function issuesOf(value: unknown): Array<{ path: string; message: string }> {
  try {
    parseMcpServersConfig(value);
  } catch (error) {
    if (error instanceof McpConfigError) return [...error.issues];
    throw error;
  }
  throw new Error('expected the config to be invalid');
}

describe('the mcpServers config', () => {
  it('reads Claude Desktop / Claude Code / Cursor entries: a command is stdio, a url without type is Streamable HTTP; other top-level keys are ignored', () => {
    const servers = parseMcpServersConfig({
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { DEBUG: '1' }, cwd: '/srv' },
        explicit: { type: 'stdio', command: 'mcp-server' },
        docs: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        cursor: { url: 'http://127.0.0.1:3000/mcp' },
        legacy: { type: 'sse', url: 'http://127.0.0.1:3000/sse' },
      },
    });
    expect(servers).toEqual({
      fs: { type: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { DEBUG: '1' }, cwd: '/srv' },
      explicit: { type: 'stdio', command: 'mcp-server' },
      docs: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
      cursor: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
      legacy: { type: 'sse', url: 'http://127.0.0.1:3000/sse' },
    });
  });

  it.each([
    ['a stdio server without command', { fs: { args: ['x'] } }, 'mcpServers.fs.command', /expected string/],
    ['an empty command', { fs: { command: '' } }, 'mcpServers.fs.command', /command must name a program/],
    ['args that are not strings', { fs: { command: 'x', args: [1] } }, 'mcpServers.fs.args.0', /expected string/],
    ['an env value that is not a string', { fs: { command: 'x', env: { PORT: 8080 } } }, 'mcpServers.fs.env.PORT', /expected string/],
    ['an unknown key (a "disabled" flag must not be ignored)', { fs: { command: 'x', disabled: true } }, 'mcpServers.fs', /Unrecognized key: "disabled"/],
    ['an unknown type', { web: { type: 'websocket', url: 'ws://x' } }, 'mcpServers.web.type', /type must be "stdio" .*"http" or "sse", got "websocket"/],
    ['an http server without url', { web: { type: 'http' } }, 'mcpServers.web.url', /url is required/],
    ['a url that is not http', { web: { type: 'http', url: 'file:///etc/passwd' } }, 'mcpServers.web.url', /http or https URL/],
    ['headers that are not strings', { web: { type: 'http', url: 'http://x/mcp', headers: { 'X-N': 1 } } }, 'mcpServers.web.headers.X-N', /expected string/],
    ['a server name that cannot be part of a tool name', { 'my server': { command: 'x' } }, 'mcpServers.my server', /letters, digits, dashes or underscores/],
    ['an entry that is not an object', { fs: 'npx server' }, 'mcpServers.fs', /expected object/],
  ])('names the field of %s', (_case, mcpServers, path, message) => {
    const issues = issuesOf({ mcpServers });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(path);
    expect(issues[0]!.message).toMatch(message);
  });

  it('says mcpServers is required, and reports every bad field at once', () => {
    expect(issuesOf({ servers: {} })).toEqual([{ path: 'mcpServers', message: 'mcpServers is required: an object of servers by name' }]);
    expect(issuesOf({ mcpServers: { a: { command: '' }, b: { type: 'http' } } }).map((issue) => issue.path)).toEqual(['mcpServers.a.command', 'mcpServers.b.url']);
  });

  it('takes a connectTimeoutMs and a maxMessageBytes for any server, and refuses ones that are not positive whole numbers', () => {
    expect(parseMcpServersConfig({ mcpServers: { fs: { command: 'x', connectTimeoutMs: 5000, maxMessageBytes: 1024 } } }).fs).toMatchObject({ connectTimeoutMs: 5000, maxMessageBytes: 1024 });
    expect(issuesOf({ mcpServers: { a: { command: 'x', connectTimeoutMs: 0 }, b: { url: 'http://127.0.0.1/mcp', maxMessageBytes: -1 }, c: { command: 'x', connectTimeoutMs: '30s' } } })).toEqual([
      { path: 'mcpServers.a.connectTimeoutMs', message: 'connectTimeoutMs must be a positive number of milliseconds' },
      { path: 'mcpServers.b.maxMessageBytes', message: 'maxMessageBytes must be a positive number of bytes' },
      { path: 'mcpServers.c.connectTimeoutMs', message: 'Invalid input: expected number, received string' },
    ]);
  });

  it('takes a callTimeoutMs for any server, and refuses one that is not a positive whole number', () => {
    expect(parseMcpServersConfig({ mcpServers: { docs: { url: 'http://127.0.0.1/mcp', callTimeoutMs: 120_000 } } }).docs).toMatchObject({ callTimeoutMs: 120_000 });
    expect(issuesOf({ mcpServers: { a: { command: 'x', callTimeoutMs: 1.5 }, b: { command: 'x', callTimeoutMs: 0 } } })).toEqual([
      { path: 'mcpServers.a.callTimeoutMs', message: 'Invalid input: expected int, received number' },
      { path: 'mcpServers.b.callTimeoutMs', message: 'callTimeoutMs must be a positive number of milliseconds' },
    ]);
  });

  it('refuses a timeout longer than a timer can wait (2^31 - 1 ms), which Node would cut to 1 ms', () => {
    expect(issuesOf({ mcpServers: { a: { command: 'x', callTimeoutMs: 2 ** 31 }, b: { command: 'x', connectTimeoutMs: 1e10 } } })).toEqual([
      { path: 'mcpServers.a.callTimeoutMs', message: 'callTimeoutMs must be at most 2147483647 ms (about 24.8 days)' },
      { path: 'mcpServers.b.connectTimeoutMs', message: 'connectTimeoutMs must be at most 2147483647 ms (about 24.8 days)' },
    ]);
  });

  it("the error's message lists each issue with its path", () => {
    expect(() => parseMcpServersConfig({ mcpServers: { fs: {} } }, '.mcp.json')).toThrow(/^Invalid MCP servers config \.mcp\.json:\n {2}- mcpServers\.fs\.command: /);
  });
});

describe('loadMcpServersConfig', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function file(name: string, text: string): Promise<string> {
    dir ??= await mkdtemp(path.join(os.tmpdir(), 'loopchart-mcp-config-'));
    const target = path.join(dir, name);
    await writeFile(target, text);
    return target;
  }

  it("takes a stdio server's relative cwd relative to the file", async () => {
    const config = await file('.mcp.json', JSON.stringify({ mcpServers: { fs: { command: 'x', cwd: 'servers/fs' }, abs: { command: 'y', cwd: '/srv' } } }));
    expect(await loadMcpServersConfig(config)).toEqual({
      mcpServers: { fs: { type: 'stdio', command: 'x', cwd: path.join(dir!, 'servers/fs') }, abs: { type: 'stdio', command: 'y', cwd: '/srv' } },
    });
  });

  it('names the file when it is not JSON or a field is wrong', async () => {
    const broken = await file('broken.json', '{ "mcpServers": ');
    await expect(loadMcpServersConfig(broken)).rejects.toThrow(new RegExp(`^Invalid MCP servers config ${broken.replace(/[.]/g, '\\.')}:\n  - \\(syntax\\): not JSON`));
    const wrong = await file('wrong.json', JSON.stringify({ mcpServers: { fs: { command: 1 } } }));
    await expect(loadMcpServersConfig(wrong)).rejects.toThrow('mcpServers.fs.command');
  });

  it('replaces ${NAME} and ${NAME:-default} in the servers from the given environment, before validating', async () => {
    const config = await file(
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          github: { command: 'docker', args: ['run', '--env', 'TOKEN=${GH_TOKEN}'], env: { GITHUB_TOKEN: '${GH_TOKEN}', LEVEL: '${LOG_LEVEL:-info}' } },
          docs: { url: '${DOCS_HOST:-http://127.0.0.1:3000}/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
    );
    expect(await loadMcpServersConfig(config, { env: { GH_TOKEN: 'ghp_1', DOCS_TOKEN: 'd-2', LOG_LEVEL: '' } })).toEqual({
      mcpServers: {
        github: { type: 'stdio', command: 'docker', args: ['run', '--env', 'TOKEN=ghp_1'], env: { GITHUB_TOKEN: 'ghp_1', LEVEL: 'info' } },
        docs: { type: 'http', url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer d-2' } },
      },
    });
  });

  it('names every field whose variable is not set and has no default', async () => {
    const config = await file('.mcp.json', JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', env: { TOKEN: '${GH_TOKEN}' }, args: ['${A}', '${B:-b}'] } } }));
    const error = await loadMcpServersConfig(config, { env: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).issues).toEqual([
      { path: 'mcpServers.github.env.TOKEN', message: '${GH_TOKEN} is not set (and has no default: ${GH_TOKEN:-default})' },
      { path: 'mcpServers.github.args.0', message: '${A} is not set (and has no default: ${A:-default})' },
    ]);
  });

  it('refuses a withheld variable, set or not, with a default or not, saying why', async () => {
    const config = await file('.mcp.json', JSON.stringify({ mcpServers: { s: { command: 'x', env: { A: '${KEY}', B: '${KEY:-b}', C: '${OTHER}' } } } }));
    const error = await loadMcpServersConfig(config, { env: { KEY: 'sk-1', OTHER: 'o' }, withheld: { KEY: 'is withheld here' } }).catch((caught: unknown) => caught);
    expect((error as McpConfigError).issues).toEqual([
      { path: 'mcpServers.s.env.A', message: '${KEY} is withheld here' },
      { path: 'mcpServers.s.env.B', message: '${KEY} is withheld here' },
    ]);
  });
});

