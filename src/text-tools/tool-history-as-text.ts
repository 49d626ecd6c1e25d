import type { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4ToolResultPart } from '@ai-sdk/provider';
import { toolOutputText } from './tool-output-text.js';
import { formatToolCall, formatToolResult } from './tool-protocol-syntax.js';

type UserMessage = Extract<LanguageModelV4Message, { role: 'user' }>;
type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

/**
 * Rewrites the tool traffic of a prompt into the text protocol, for a model
 * that knows nothing of native tool calls: each assistant tool call becomes
 * its `<use_tool>` block, and each tool message becomes a user message of
 * `<tool_result>` blocks (merged with a neighbouring user message, so that
 * user and assistant turns still alternate). Other messages are kept as they are.
 *
 * @example
 * toolHistoryAsText([
 *   { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } }] },
 *   { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'json', value: 5 } }] },
 * ]);
 * // [{ role: 'assistant', content: [{ type: 'text', text: '<use_tool>…{"a":2,"b":3}…</use_tool>' }] },
 * //  { role: 'user', content: [{ type: 'text', text: '<tool_result><tool_name>add</tool_name><result>5</result></tool_result>' }] }]
 */
export function toolHistoryAsText(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt {
  const rewritten: LanguageModelV4Prompt = [];
  const toolResultMessages = new Set<LanguageModelV4Message>();
  for (const message of prompt) {
    let next: LanguageModelV4Message;
    if (message.role === 'assistant') {
      next = message.content.some(isToolPart) ? { ...message, content: message.content.map(toolPartAsText) } : message;
    } else if (message.role === 'tool') {
      const results = message.content.filter((part): part is LanguageModelV4ToolResultPart => part.type === 'tool-result');
      if (results.length === 0) continue;
      next = { role: 'user', content: [{ type: 'text', text: results.map(toolResultAsText).join('\n') }] };
      toolResultMessages.add(next);
    } else {
      next = message;
    }

    const previous = rewritten[rewritten.length - 1];
    if (next.role === 'user' && previous?.role === 'user' && (toolResultMessages.has(next) || toolResultMessages.has(previous))) {
      const merged: UserMessage = { ...previous, content: [...previous.content, ...next.content] };
      toolResultMessages.add(merged);
      rewritten[rewritten.length - 1] = merged;
    } else {
      rewritten.push(next);
    }
  }
  return rewritten;
}

/**
 * Adds `instructions` to the prompt's system prompt: appended to its first
 * system message, or as a new system message at the start.
 *
 * @example
 * withInstructions([{ role: 'system', content: 'Be brief.' }], '# Tools…')
 * // [{ role: 'system', content: 'Be brief.\n\n# Tools…' }]
 */
export function withInstructions(prompt: LanguageModelV4Prompt, instructions: string): LanguageModelV4Prompt {
  const systemIndex = prompt.findIndex((message) => message.role === 'system');
  if (systemIndex === -1) return [{ role: 'system', content: instructions }, ...prompt];
  return prompt.map((message, index) =>
    index === systemIndex && message.role === 'system'
      ? { ...message, content: message.content === '' ? instructions : `${message.content}\n\n${instructions}` }
      : message,
  );
}

function isToolPart(part: AssistantPart): boolean {
  return part.type === 'tool-call' || part.type === 'tool-result';
}

function toolPartAsText(part: AssistantPart): AssistantPart {
  if (part.type === 'tool-call') return { type: 'text', text: formatToolCall(part.toolName, argumentsText(part.input)) };
  if (part.type === 'tool-result') return { type: 'text', text: toolResultAsText(part) };
  return part;
}

function toolResultAsText(part: LanguageModelV4ToolResultPart): string {
  return formatToolResult(part.toolName, toolOutputText(part.output));
}

/** A string input is what the model wrote when its arguments could not be parsed; it is shown as written. */
function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}
