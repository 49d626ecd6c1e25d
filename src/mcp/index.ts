// `loopchart/mcp`: MCP servers' tools for an agent, from the `mcpServers` config of Claude Desktop, Claude Code and Cursor.
export { connectMcpTools, McpConnectionError, type ConnectMcpToolsOptions, type McpTools } from './connect-mcp-tools.js';
export { loadMcpServersConfig } from './load-mcp-config.js';
export {
  McpConfigError,
  mcpServersConfigSchema,
  parseMcpServersConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpServersConfig,
  type McpStdioServerConfig,
} from './mcp-config.js';
export { McpToolNameError, prefixedMcpToolName, type McpToolNaming } from './mcp-tool-names.js';
export { askForMcpTools } from './ask-for-mcp-tools.js';
export { McpMessageTooLargeError } from './message-too-large.js';
export { McpToolError } from './mcp-tool-error.js';
