import type { ToolSet } from 'ai';

/** Names a server's tool for the agent: `server` is its key under `mcpServers`, `tool` the name the server gives it. */
export type McpToolNaming = (server: string, tool: string) => string;

/**
 * The default naming, Claude Code's: `mcp__<server>__<tool>`. Two servers may
 * both have a `search` tool, and no MCP tool shadows a built-in one; approval
 * rules can name a server's tools with a glob (`mcp__github__*`).
 *
 * @example
 * prefixedMcpToolName('fs', 'read_file'); // 'mcp__fs__read_file'
 */
export const prefixedMcpToolName: McpToolNaming = (server, tool) => `mcp__${server}__${tool}`;

/** One connected server's tools, under the names the server gives them. */
export interface ServerTools {
  server: string;
  tools: ToolSet;
}

/** Two tools would have the same name: which name, and who wants it. */
export class McpToolNameError extends Error {
  override readonly name = 'McpToolNameError';
}

/**
 * Merges the servers' tools into one `ToolSet` under the names `toolName`
 * gives them. Throws `McpToolNameError` when two tools get the same name, or
 * when a name is one of `reservedToolNames` (the agent's other tools): a tool
 * must never silently replace another.
 *
 * @example
 * mergeServerTools([{ server: 'fs', tools: fsTools }], { toolName: prefixedMcpToolName, reservedToolNames: ['read', 'bash'] });
 */
export function mergeServerTools(
  servers: readonly ServerTools[],
  { toolName, reservedToolNames = [] }: { toolName: McpToolNaming; reservedToolNames?: Iterable<string> },
): ToolSet {
  const reserved = new Set(reservedToolNames);
  const owners = new Map<string, { server: string; tool: string }>();
  const merged: ToolSet = {};
  for (const { server, tools } of servers) {
    for (const [tool, definition] of Object.entries(tools)) {
      const name = toolName(server, tool);
      if (typeof name !== 'string' || name === '') {
        throw new McpToolNameError(`the toolName function gave tool "${tool}" of MCP server "${server}" no name (${JSON.stringify(name)})`);
      }
      if (reserved.has(name)) {
        throw new McpToolNameError(`tool "${tool}" of MCP server "${server}" would be named "${name}", the name of one of the agent's other tools; name MCP tools differently (toolName)`);
      }
      const owner = owners.get(name);
      if (owner) {
        throw new McpToolNameError(
          `two MCP tools would be named "${name}": tool "${owner.tool}" of server "${owner.server}" and tool "${tool}" of server "${server}"; rename a server or name MCP tools differently (toolName)`,
        );
      }
      owners.set(name, { server, tool });
      merged[name] = definition;
    }
  }
  return merged;
}
