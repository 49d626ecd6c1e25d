import type { ApprovalRules } from '../approval/approval-policy.js';
import { askForMcpTools } from '../mcp/ask-for-mcp-tools.js';
import type { McpTools } from '../mcp/connect-mcp-tools.js';
import { loadMcpServersConfig } from '../mcp/load-mcp-config.js';
import { McpConfigError } from '../mcp/mcp-config.js';
import type { SandboxSetting } from '../tools/sandbox-settings.js';
import { isMissingPackage } from './load-provider-package.js';
import { UsageError } from './usage-error.js';

/**
 * `--mcp FILE`: the servers of an `mcpServers` JSON file, connected, their
 * tools named `mcp__<server>__<tool>`. A file that cannot be read or is
 * invalid is a usage error; a server that cannot be connected rejects with
 * an error naming it (the others are closed again). Each line a stdio
 * server writes on stderr goes to `serverLog` with the server's name, never
 * raw to the terminal.
 */
export async function connectCliMcpTools(
  file: string,
  { reservedToolNames, signal, sandbox, serverLog }: { reservedToolNames: Iterable<string>; signal: AbortSignal; sandbox: SandboxSetting; serverLog: (line: string, server: string) => void },
): Promise<McpTools> {
  let config;
  try {
    config = await loadMcpServersConfig(file);
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(`--mcp: ${error.message}`);
    throw new UsageError(`--mcp: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // @ai-sdk/mcp is an optional peer: loaded only for --mcp, so a run without it needs none installed.
  let connect: typeof import('../mcp/connect-mcp-tools.js');
  try {
    connect = await import('../mcp/connect-mcp-tools.js');
  } catch (error) {
    if (isMissingPackage(error, '@ai-sdk/mcp')) throw new UsageError('--mcp needs the package @ai-sdk/mcp, which is not installed: npm install @ai-sdk/mcp');
    throw error;
  }
  return connect.connectMcpTools(config, { reservedToolNames, signal, sandbox, stderr: serverLog });
}

/**
 * The run's approval rules with the MCP tools added. A real model (a prompt,
 * or `--model`) always asks before an MCP tool runs, as before write, edit
 * and bash; a script's own turns follow its rules, and an MCP tool they do
 * not name asks.
 */
export function withMcpApprovalRules(rules: ApprovalRules | undefined, mcpToolNames: readonly string[], { realModel }: { realModel: boolean }): ApprovalRules | undefined {
  if (mcpToolNames.length === 0) return rules;
  if (realModel) return { ...rules, ask: [...(rules?.ask ?? []), ...mcpToolNames] };
  return askForMcpTools(rules, mcpToolNames);
}
