import type { ModelMessage, SystemModelMessage } from 'ai';
import type { MessageList } from '../core/message-history.js';

/**
 * Token estimates for context accounting: one token per four characters of
 * everything a message carries (text, reasoning, tool inputs and outputs).
 * Rough on purpose — the provider's own count replaces it after every call.
 */
/** The one rule: a token per four characters, rounded up. */
export function tokensForCharacters(characters: number): number {
  return Math.ceil(characters / 4);
}

export function estimateTextTokens(text: string): number {
  return tokensForCharacters(text.length);
}

/** Each message's estimate: messages are never changed, and without a provider count every step estimates the whole history. */
const messageTokens = new WeakMap<ModelMessage, number>();

export function estimateMessageTokens(message: ModelMessage): number {
  if (typeof message.content === 'string') return estimateTextTokens(message.content) + 4;
  let tokens = messageTokens.get(message);
  if (tokens === undefined) {
    tokens = estimatePartsTokens(message.content);
    messageTokens.set(message, tokens);
  }
  return tokens;
}

function estimatePartsTokens(content: Exclude<ModelMessage['content'], string>): number {
  let characters = 0;
  for (const part of content) characters += partCharacters(part);
  return tokensForCharacters(characters) + 4;
}

/** A message part as both prompt shapes have it: a `ModelMessage`'s and a provider prompt's (`LanguageModelV4Prompt`). */
export type EstimatedPart =
  | { type: 'text' | 'reasoning'; text: string }
  | { type: 'tool-call'; toolName: string; input: unknown }
  | { type: 'tool-result'; toolName: string; output: { type: string; value?: unknown } }
  | { type: string };

/**
 * The characters one part counts for, by the one rule every estimate uses (the context's, and the
 * scripted model's usage): text and reasoning as written, a tool call's name and JSON input, a
 * tool result's name and output, anything else (a file, an image) as its JSON.
 *
 * @example
 * ```ts
 * tokensForCharacters(partCharacters({ type: 'text', text: 'Hello, world' })) // 3
 * ```
 */
export function partCharacters(part: EstimatedPart): number {
  if ((part.type === 'text' || part.type === 'reasoning') && 'text' in part) return part.text.length;
  if (part.type === 'tool-call' && 'input' in part && 'toolName' in part) return part.toolName.length + jsonLength(part.input);
  if (part.type === 'tool-result' && 'output' in part && 'toolName' in part) return part.toolName.length + outputLength(part.output);
  return jsonLength(part);
}

export function estimateTokens(messages: MessageList, from = 0): number {
  let tokens = 0;
  for (let index = from; index < messages.length; index++) tokens += estimateMessageTokens(messages.at(index)!);
  return tokens;
}

export function estimateInstructionsTokens(instructions: string | SystemModelMessage | SystemModelMessage[] | undefined): number {
  if (instructions === undefined) return 0;
  if (typeof instructions === 'string') return estimateTextTokens(instructions);
  return [instructions].flat().reduce((sum, message) => sum + estimateTextTokens(message.content), 0);
}

/** The provider's count at the end of the last call, and how many messages the history had then. */
export interface UsageMark {
  tokens: number;
  messageCount: number;
}

/**
 * The context's size in tokens: the last call's provider usage (input plus
 * output) plus an estimate of the messages added since; without a provider
 * count yet, an estimate of everything.
 */
export function contextTokens(options: {
  messages: MessageList;
  instructions?: string | SystemModelMessage | SystemModelMessage[];
  mark?: UsageMark;
}): number {
  const { messages, instructions, mark } = options;
  if (mark && mark.messageCount <= messages.length && mark.tokens > 0) return mark.tokens + estimateTokens(messages, mark.messageCount);
  return estimateInstructionsTokens(instructions) + estimateTokens(messages);
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

function outputLength(output: { type: string; value?: unknown }): number {
  return typeof output.value === 'string' ? output.value.length : jsonLength(output.value);
}
