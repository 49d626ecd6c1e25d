import type { LanguageModelV4FunctionTool, LanguageModelV4ToolChoice } from '@ai-sdk/provider';
import { formatToolCall, formatToolResult } from './tool-protocol-syntax.js';

/**
 * The system-prompt section that teaches a model the text tool protocol and
 * lists the tools with their descriptions and JSON Schemas.
 *
 * @example
 * toolInstructions([{ type: 'function', name: 'add', description: 'Adds', inputSchema: { type: 'object' } }], { type: 'auto' });
 * // "# Tools\n\nYou can call the tools listed below. ..."
 */
export function toolInstructions(tools: readonly LanguageModelV4FunctionTool[], toolChoice: LanguageModelV4ToolChoice | undefined): string {
  const example = formatToolCall('NAME', '{"parameter": "value"}');
  const sections = [
    '# Tools',
    [
      'You can call the tools listed below. To call a tool, write this block in your answer, with the arguments',
      "as one JSON object that matches the tool's input schema:",
      '',
      example,
      '',
      '- Write each block as plain text, not inside a code block. Write one block per call; you may write several',
      '  blocks, and they run in the order you wrote them.',
      '- End your answer after your last block. The results come back in the next message, one per call, in the',
      '  same order:',
      `  ${formatToolResult('NAME', { isError: false, text: 'OUTPUT' })}`,
      '  or, when the call failed:',
      `  ${formatToolResult('NAME', { isError: true, text: 'MESSAGE' })}`,
      '- Never write a <tool_result> block yourself.',
      choiceRule(toolChoice),
    ].join('\n'),
    '## Available tools',
    ...tools.map(describeTool),
  ];
  return sections.join('\n\n');
}

function choiceRule(toolChoice: LanguageModelV4ToolChoice | undefined): string {
  switch (toolChoice?.type) {
    case 'required':
      return '- You must call at least one tool in this answer.';
    case 'tool':
      return `- You must call the tool ${toolChoice.toolName} in this answer.`;
    default:
      return '- When no tool is needed, answer without a block.';
  }
}

function describeTool(tool: LanguageModelV4FunctionTool): string {
  const lines = [`### ${tool.name}`];
  if (tool.description) lines.push(tool.description);
  const { $schema: _dialect, ...inputSchema } = tool.inputSchema;
  lines.push(`Input schema: ${JSON.stringify(inputSchema)}`);
  for (const example of tool.inputExamples ?? []) lines.push(`Example: ${formatToolCall(tool.name, JSON.stringify(example.input))}`);
  return lines.join('\n');
}
