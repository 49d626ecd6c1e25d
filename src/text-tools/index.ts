// `loopchart/text-tools`: tool calls as tagged text, for models without native tool calling.
export { textToolProtocol, type TextToolProtocolOptions } from './text-tool-protocol.js';
export { ToolTagParser, type TextToolCall, type ToolTagEvent } from './tool-tag-parser.js';
export { readToolArguments, type ToolArguments, type ToolArgumentsStatus } from './tool-arguments.js';
export { formatToolCall, formatToolResult, type ToolResultText } from './tool-protocol-syntax.js';
