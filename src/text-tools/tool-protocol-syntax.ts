/**
 * The text tool protocol's syntax: the tags a model writes to call a tool and
 * the tags its results come back in. Everything that writes or reads the
 * protocol uses these, so the format is defined once.
 */

export const USE_TOOL_OPEN = '<use_tool>';
export const USE_TOOL_CLOSE = '</use_tool>';
export const TOOL_NAME_OPEN = '<tool_name>';
export const TOOL_NAME_CLOSE = '</tool_name>';
export const ARGUMENTS_OPEN = '<arguments>';
export const ARGUMENTS_CLOSE = '</arguments>';

/** How a tool result is reported to the model: its output, or the error that replaced it. */
export interface ToolResultText {
  isError: boolean;
  text: string;
}

/**
 * A tool call written in the protocol.
 *
 * @example
 * formatToolCall('read', '{"path":"a.ts"}')
 * // '<use_tool><tool_name>read</tool_name><arguments>{"path":"a.ts"}</arguments></use_tool>'
 */
export function formatToolCall(toolName: string, argumentsText: string): string {
  return `${USE_TOOL_OPEN}${TOOL_NAME_OPEN}${toolName}${TOOL_NAME_CLOSE}${ARGUMENTS_OPEN}${argumentsText}${ARGUMENTS_CLOSE}${USE_TOOL_CLOSE}`;
}

/**
 * A tool result written in the protocol; an error goes in `<error>` instead of `<result>`.
 *
 * @example
 * formatToolResult('add', { isError: false, text: '5' })
 * // '<tool_result><tool_name>add</tool_name><result>5</result></tool_result>'
 * formatToolResult('read', { isError: true, text: "Path 'x' does not exist" })
 * // "<tool_result><tool_name>read</tool_name><error>Path 'x' does not exist</error></tool_result>"
 */
export function formatToolResult(toolName: string, result: ToolResultText): string {
  const tag = result.isError ? 'error' : 'result';
  return `<tool_result>${TOOL_NAME_OPEN}${toolName}${TOOL_NAME_CLOSE}<${tag}>${result.text}</${tag}></tool_result>`;
}
