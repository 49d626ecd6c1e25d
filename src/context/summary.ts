import type { ModelMessage, UserModelMessage } from 'ai';

/** How a summary message starts; also how an earlier summary is recognised. */
export const SUMMARY_HEADER = '[Summary of the earlier conversation, written by the agent runtime to save context. The messages it replaces are gone.]';

export const SUMMARY_HEADINGS = ['Goal', 'Constraints', 'Progress', 'Key decisions', 'Next steps', 'Critical context'] as const;

/** Tool results in the summariser's transcript are cut to this many characters. */
export const TRANSCRIPT_TOOL_RESULT_CHARS = 2000;

export const DEFAULT_SUMMARY_INSTRUCTIONS = `You compact the history of a coding agent's conversation so that the agent can continue the task with less context.
Write a dense summary in Markdown with exactly these headings, in this order: ${SUMMARY_HEADINGS.map((heading) => `## ${heading}`).join(', ')}.
Keep every fact the agent needs to go on: file paths, names, commands, errors, decisions and why they were made, what is done and what is left.
Do not invent anything. Do not address the user. Answer with the summary only.`;

export function summaryMessage(summary: string): UserModelMessage {
  return { role: 'user', content: `${SUMMARY_HEADER}\n\n${summary.trim()}` };
}

/** The text of an earlier summary, when the message is one. */
export function summaryText(message: ModelMessage | undefined): string | undefined {
  if (message?.role !== 'user' || typeof message.content !== 'string' || !message.content.startsWith(SUMMARY_HEADER)) return undefined;
  return message.content.slice(SUMMARY_HEADER.length).trim();
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)} […${text.length - limit} more characters]`;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The messages as a plain transcript for the summariser; tool results are cut to {@link TRANSCRIPT_TOOL_RESULT_CHARS}. */
export function transcript(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const speaker = message.role === 'user' ? 'User' : message.role === 'assistant' ? 'Assistant' : message.role === 'system' ? 'System' : 'Tool';
    if (typeof message.content === 'string') {
      lines.push(`${speaker}: ${message.content}`);
      continue;
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          lines.push(`${speaker}: ${part.text}`);
          break;
        case 'reasoning':
          lines.push(`${speaker} (thinking): ${part.text}`);
          break;
        case 'tool-call':
          lines.push(`${speaker} called ${part.toolName}(${stringify(part.input)})`);
          break;
        case 'tool-result': {
          const output = part.output as { type: string; value?: unknown };
          const label = output.type.startsWith('error') ? 'failed' : 'returned';
          lines.push(`Tool ${part.toolName} ${label}: ${clip(stringify(output.value ?? ''), TRANSCRIPT_TOOL_RESULT_CHARS)}`);
          break;
        }
        default:
          lines.push(`${speaker}: [${part.type}]`);
      }
    }
  }
  return lines.join('\n');
}

/** The summariser's prompt: a fresh summary, or an update of the previous one with what happened since. */
export function summaryPrompt(messages: readonly ModelMessage[], previousSummary: string | undefined): string {
  if (previousSummary === undefined) {
    return `Summarise this conversation:\n\n<conversation>\n${transcript(messages)}\n</conversation>`;
  }
  return `Here is the summary of the conversation so far:\n\n<summary>\n${previousSummary}\n</summary>\n\nUpdate it with what happened since (keep the same headings; keep what still matters from the old summary):\n\n<conversation>\n${transcript(messages)}\n</conversation>`;
}
