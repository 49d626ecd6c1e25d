import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { expandVariables, namedVariables } from './expand-variables.js';
import { McpConfigError, parseMcpServersConfig, type McpServersConfig } from './mcp-config.js';

/** `loadMcpServersConfig`'s options, checked whole before the file is read: a misspelt one is refused, not ignored. */
const loadOptionsSchema = z.strictObject({
  env: z.record(z.string(), z.string().optional()).optional(),
  withheld: z.record(z.string(), z.string()).optional(),
});

/**
 * Reads an `mcpServers` JSON file (`.mcp.json`, `claude_desktop_config.json`,
 * `.cursor/mcp.json`) and validates it. A relative `cwd` of a stdio server is
 * taken relative to the file's directory. `${NAME}` and `${NAME:-default}` in
 * the servers' strings (command, args, env, cwd, url, headers) are replaced by
 * the variables of `options.env` (default `process.env`), as Claude Code does.
 *
 * @example
 * ```ts
 * import { connectMcpTools, loadMcpServersConfig } from 'loopchart/mcp';
 *
 * const mcp = await connectMcpTools(await loadMcpServersConfig('.mcp.json'));
 * ```
 * @throws TypeError when an option is unknown or not of its kind; McpConfigError when the file is not JSON, a field is invalid or names a variable that is not set and has no default (naming the field, e.g. `mcpServers.fs.command`); the file system's error when it cannot be read.
 */
export async function loadMcpServersConfig(
  file: string,
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    /** Variables that are not to be used, each with why (e.g. the run's own API key): naming one is an McpConfigError that says why, default or not. */
    withheld?: Readonly<Record<string, string>>;
  } = {},
): Promise<McpServersConfig> {
  parseOptions('loadMcpServersConfig', loadOptionsSchema, options);
  const text = await readFile(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(file, [{ path: '(syntax)', message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && 'mcpServers' in data) {
    const withheld = options.withheld ?? {};
    const env = { ...(options.env ?? process.env) };
    for (const name of Object.keys(withheld)) delete env[name];
    const expanded = expandVariables(data.mcpServers, env, 'mcpServers');
    const refused = namedVariables(data.mcpServers, 'mcpServers').filter(({ name }) => Object.hasOwn(withheld, name));
    const issues = [
      ...refused.map(({ path: at, name }) => ({ path: at, message: `\${${name}} ${withheld[name]}` })),
      ...expanded.unset
        .filter(({ name }) => !Object.hasOwn(withheld, name))
        .map(({ path: at, name }) => ({ path: at, message: `\${${name}} is not set (and has no default: \${${name}:-default})` })),
    ];
    if (issues.length > 0) throw new McpConfigError(file, issues);
    data = { ...data, mcpServers: expanded.value };
  }
  const servers = parseMcpServersConfig(data, file);
  const directory = path.dirname(path.resolve(file));
  return {
    mcpServers: Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [name, server.type === 'stdio' && server.cwd !== undefined ? { ...server, cwd: path.resolve(directory, server.cwd) } : server]),
    ),
  };
}
