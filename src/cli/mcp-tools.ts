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
 * an error naming it (the others are closed again). `${NAME}` in the file
 * reads `env`, the provider keys the CLI withdrew included (a server's
 * `"BRAVE_API_KEY": "${BRAVE_API_KEY}"` works), except the run's own key,
 * which naming is a usage error that says so. Each line a stdio
 * server writes on stderr goes to `serverLog` with the server's name, never
 * raw to the terminal.
 */
export async function connectCliMcpTools(
  file: string,
  {
    reservedToolNames,
    signal,
    sandbox,
    serverLog,
    env,
    runKeyVariable,
  }: {
    reservedToolNames: Iterable<string>;
    signal: AbortSignal;
    sandbox: SandboxSetting;
    serverLog: (line: string, server: string) => void;
    /** The environment `${NAME}` is read from: the CLI's as it started, the provider keys it withdrew included. */
    env: Readonly<Record<string, string | undefined>>;
    /** The variable of the run's own API key (its model's, or --api-key-env): never handed to a server. */
    runKeyVariable: string | undefined;
  },
): Promise<McpTools> {
  let config;
  try {
    config = await loadMcpServersConfig(file, {
      env,
      ...(runKeyVariable !== undefined
        ? { withheld: { [runKeyVariable]: "holds the run's own API key, which loopchart run never hands to an MCP server: give the server a key of its own in another variable" } }
        : {}),
    });
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
