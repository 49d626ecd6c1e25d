import type { ModelMessage } from 'ai';
import { streamText } from 'ai';
import { expect } from 'vitest';
import { mockModel } from './mock-model.js';

/** Tool-call ids and how many results each has. */
export function toolResultCounts(messages: ModelMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') counts.set(part.toolCallId, counts.get(part.toolCallId) ?? 0);
    }
    for (const part of message.content) {
      if (part.type === 'tool-result') counts.set(part.toolCallId, (counts.get(part.toolCallId) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * Invariant 2: every tool call has exactly one result, and the AI SDK accepts
 * the history as the prompt of its next call (no MissingToolResultsError).
 */
export async function expectValidHistory(messages: ModelMessage[]): Promise<void> {
  for (const [id, count] of toolResultCounts(messages)) {
    expect(count, `tool call ${id} must have exactly one result`).toBe(1);
  }
  const result = streamText({ model: mockModel([{ text: ['ok'] }]), messages, maxRetries: 0 });
  await expect(result.text).resolves.toBe('ok');
}

/** The tool-result outputs of the history, by tool-call id. */
export function toolOutputs(messages: ModelMessage[]): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') outputs[part.toolCallId] = part.output;
  }
  return outputs;
}
