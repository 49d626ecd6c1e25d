import type { ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';

/** One tool call's answer as it enters the history. */
export interface ToolAnswer {
  toolCallId: string;
  toolName: string;
  output: ToolResultPart['output'];
}

/**
 * A new history: `messages` followed by `added`. The context stays immutable, so every append copies
 * the array; `concat` copies it several times faster than spreading it, which at 10,000 messages is
 * most of what a step's appends cost.
 */
export function appendMessages(messages: readonly ModelMessage[], ...added: readonly ModelMessage[]): ModelMessage[] {
  return messages.concat(added);
}

export function errorAnswer(call: { toolCallId: string; toolName: string }, message: string): ToolAnswer {
  return { toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: message } };
}

export function toolMessage(answers: readonly ToolAnswer[]): ToolModelMessage {
  return {
    role: 'tool',
    content: answers.map((answer) => ({
      type: 'tool-result',
      toolCallId: answer.toolCallId,
      toolName: answer.toolName,
      output: answer.output,
    })),
  };
}

/** Tool calls made in `messages[from..]` that have no tool result yet, in call order. */
export function unansweredToolCalls(
  messages: readonly ModelMessage[],
  from = 0,
): Array<{ toolCallId: string; toolName: string }> {
  const pending = new Map<string, { toolCallId: string; toolName: string }>();
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && message.role === 'assistant' && !part.providerExecuted) {
        pending.set(part.toolCallId, { toolCallId: part.toolCallId, toolName: part.toolName });
      } else if (part.type === 'tool-result') {
        pending.delete(part.toolCallId);
      }
    }
  }
  return [...pending.values()];
}
