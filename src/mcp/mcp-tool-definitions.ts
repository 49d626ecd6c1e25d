import type { ListToolsResult } from '@ai-sdk/mcp';

type ToolDefinition = ListToolsResult['tools'][number];

/** A server listed tools an agent cannot be given as they are: what is wrong, naming the tool. */
export class McpToolListError extends Error {
  override readonly name = 'McpToolListError';
}

/**
 * The tool definitions of one server's `tools/list` (all its pages), checked
 * before they become the agent's tools. Two tools with one name are refused
 * (the AI SDK's client would keep the last one and drop the other without a
 * word), and so is a tool whose `inputSchema` is not an object schema (MCP
 * says it is `"type": "object"`; providers refuse a request with any other,
 * so the run would fail at its first model call). An `inputSchema` without a
 * `type` is taken as the object schema MCP says it is, and given its
 * `"type": "object"` (providers refuse it without one). Pure.
 *
 * @example
 * usableToolDefinitions([{ name: 'ls', inputSchema: { properties: {} } }]); // [{ name: 'ls', inputSchema: { type: 'object', properties: {} } }]
 * usableToolDefinitions([{ name: 'ls', inputSchema: { type: 'string' } }]); // throws McpToolListError
 * @throws McpToolListError naming the first tool that cannot be taken.
 */
export function usableToolDefinitions(definitions: readonly ToolDefinition[]): ToolDefinition[] {
  const seen = new Set<string>();
  return definitions.map((definition) => {
    const { name, inputSchema } = definition;
    if (seen.has(name)) throw new McpToolListError(`two of its tools are named ${JSON.stringify(name)}`);
    seen.add(name);
    if (!('type' in inputSchema) || inputSchema.type === undefined) return { ...definition, inputSchema: { type: 'object', ...inputSchema } };
    if (inputSchema.type !== 'object') {
      throw new McpToolListError(`its tool ${JSON.stringify(name)} takes ${JSON.stringify(inputSchema.type)} (inputSchema.type), not an object as MCP says a tool's input is`);
    }
    return definition;
  });
}
