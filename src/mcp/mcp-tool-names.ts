import { createHash } from 'node:crypto';
import type { ToolSet } from 'ai';

/** Names a server's tool for the agent: `server` is its key under `mcpServers`, `tool` the name the server gives it. */
export type McpToolNaming = (server: string, tool: string) => string;

/** The longest tool name OpenAI's and Anthropic's APIs take (Google's too). */
const MAX_TOOL_NAME_LENGTH = 64;

/** Hex digits of the hash that ends a default name cut to {@link MAX_TOOL_NAME_LENGTH}. */
const HASH_DIGITS = 8;

/** Characters outside the set every provider takes in a tool name (letters, digits, `_`, `-`). */
const UNSAFE_CHARACTERS = /[^A-Za-z0-9_-]/g;

/**
 * The default naming, Claude Code's: `mcp__<server>__<tool>`. Two servers may
 * both have a `search` tool, and no MCP tool shadows a built-in one; approval
 * rules can name a server's tools with a glob (`mcp__github__*`).
 *
 * Every name it gives is one the providers take: MCP lets a tool name hold
 * `.` and `/` and run to 128 characters, but OpenAI and Anthropic refuse a
 * request whose tool names hold anything but letters, digits, `_` and `-`, or
 * pass 64 characters. So any other character becomes `_`, and a name that
 * would be longer keeps its prefix, cuts the tool's part, and ends with `_`
 * and 8 hex digits of the tool's own name's SHA-256 (the same tool always gets
 * the same name; two tools that share a long beginning get different ones).
 *
 * @example
 * prefixedMcpToolName('fs', 'read_file'); // 'mcp__fs__read_file'
 * prefixedMcpToolName('admin', 'tools.list'); // 'mcp__admin__tools_list'
 * @throws McpToolNameError when the server's name leaves no room for a tool's (more than 47 characters).
 */
export const prefixedMcpToolName: McpToolNaming = (server, tool) => {
  const prefix = `mcp__${server.replace(UNSAFE_CHARACTERS, '_')}__`;
  const name = `${prefix}${tool.replace(UNSAFE_CHARACTERS, '_')}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const kept = MAX_TOOL_NAME_LENGTH - prefix.length - 1 - HASH_DIGITS;
  if (kept < 1) {
    throw new McpToolNameError(
      `MCP server "${server}" has too long a name for its tools' names (mcp__<server>__<tool>, at most ${MAX_TOOL_NAME_LENGTH} characters): give it a name of at most ${MAX_TOOL_NAME_LENGTH - 7 - 2 - HASH_DIGITS} characters`,
    );
  }
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, HASH_DIGITS);
  return `${name.slice(0, prefix.length + kept)}_${hash}`;
};

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
