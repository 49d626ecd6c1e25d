import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { McpConfigError, parseMcpServersConfig, type McpServersConfig } from './mcp-config.js';

/**
 * Reads an `mcpServers` JSON file (`.mcp.json`, `claude_desktop_config.json`,
 * `.cursor/mcp.json`) and validates it. A relative `cwd` of a stdio server is
 * taken relative to the file's directory.
 *
 * @example
 * ```ts
 * import { connectMcpTools, loadMcpServersConfig } from 'loopchart/mcp';
 *
 * const mcp = await connectMcpTools(await loadMcpServersConfig('.mcp.json'));
 * ```
 * @throws McpConfigError when the file is not JSON or a field is invalid (naming it, e.g. `mcpServers.fs.command`); the file system's error when it cannot be read.
 */
export async function loadMcpServersConfig(file: string): Promise<McpServersConfig> {
  const text = await readFile(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(file, [{ path: '(syntax)', message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  const servers = parseMcpServersConfig(data, file);
  const directory = path.dirname(path.resolve(file));
  return {
    mcpServers: Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [name, server.type === 'stdio' && server.cwd !== undefined ? { ...server, cwd: path.resolve(directory, server.cwd) } : server]),
    ),
  };
}
