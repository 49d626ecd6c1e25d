import type { ModelMessage } from 'ai';

/**
 * The history with one message's text replaced: a system or user message with text, or an
 * assistant message's text parts (its tool calls kept, so every call still has its result).
 * Tool results are not edited: they are what a tool returned.
 *
 * @example
 * editMessage([{ role: 'user', content: 'Fix a.ts' }], { index: 0, text: 'Fix b.ts' }) // [{ role: 'user', content: 'Fix b.ts' }]
 * @throws Error saying why the message cannot be edited (no such index, a tool message, nothing to hold text).
 */
export function editMessage(messages: readonly ModelMessage[], edit: { index: number; text: string }): ModelMessage[] {
  const message = messages[edit.index];
  if (message === undefined) throw new Error(`edit: there is no message ${edit.index} (the history there has ${messages.length})`);
  const edited = editedMessage(message, edit.text, edit.index);
  return messages.map((each, index) => (index === edit.index ? edited : each));
}

function editedMessage(message: ModelMessage, text: string, index: number): ModelMessage {
  switch (message.role) {
    case 'system':
      return { ...message, content: text };
    case 'user':
      if (typeof message.content === 'string') return { ...message, content: text };
      return { ...message, content: [{ type: 'text', text }, ...message.content.filter((part) => part.type !== 'text')] };
    case 'assistant': {
      if (typeof message.content === 'string') return { ...message, content: text };
      const kept = message.content.filter((part) => part.type !== 'text' && part.type !== 'reasoning');
      return { ...message, content: [{ type: 'text', text }, ...kept] };
    }
    case 'tool':
      throw new Error(`edit: message ${index} is a tool result, which is what the tool returned; edit the call's message or the prompt instead`);
  }
}
