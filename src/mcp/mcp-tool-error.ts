import type { CallToolResult } from '@ai-sdk/mcp';

/**
 * A tool call the server answered with `isError: true` (the tool ran and
 * failed: a file not found, an API's refusal). The run takes it as a failed
 * call, like a tool that throws: the `tool-result` event has `isError: true`
 * and the model gets the server's text as an error result. Its message is
 * the result's text parts, one per line (another part as its JSON).
 *
 * @example
 * ```ts
 * agent.events$.subscribe((event) => {
 *   if (event.type === 'tool-result' && event.isError) console.log(`${event.toolName} failed: ${String(event.output)}`);
 * });
 * ```
 */
export class McpToolError extends Error {
  override readonly name = 'McpToolError';
  constructor(
    /** The server's name in the config. */
    readonly server: string,
    /** The tool's name on the server. */
    readonly tool: string,
    /** The result as the server sent it. */
    readonly result: CallToolResult,
  ) {
    super(errorResultText(result) || `MCP server "${server}" answered the call of its tool "${tool}" with an error that says nothing`);
  }
}

/** Whether a tool's output is an MCP result the server marked as an error. */
export function isErrorResult(output: unknown): output is CallToolResult {
  return typeof output === 'object' && output !== null && (output as { isError?: unknown }).isError === true;
}

/** The text of an error result: its text parts, one per line, any other part as its JSON (as the AI SDK shows it to a model). */
function errorResultText(result: CallToolResult): string {
  const content = 'content' in result && Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return content
    .map((part) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof text === 'string' ? text : JSON.stringify(part);
    })
    .join('\n');
}
