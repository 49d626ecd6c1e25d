import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { textToolProtocol } from '../../src/text-tools/index.js';
import { mockModel, type MockTurn } from '../support/mock-model.js';

/** A mock model that can only answer in text, each answer streamed in the given chunks, wrapped in the text tool protocol. */
export function textOnlyModel(answers: Array<string[] | MockTurn>) {
  const inner = mockModel(answers.map((answer) => (Array.isArray(answer) ? { text: answer } : answer)));
  let nextId = 0;
  const model = wrapLanguageModel({ model: inner, middleware: textToolProtocol({ generateToolCallId: () => `text-call-${++nextId}` }) });
  return { model, inner };
}

export const readFunctionTool: LanguageModelV4FunctionTool = {
  type: 'function',
  name: 'read',
  description: 'Read a text file in the workspace.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export function callOptions(overrides: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is in a.ts?' }] },
    ],
    tools: [readFunctionTool],
    toolChoice: { type: 'auto' },
    ...overrides,
  };
}

export async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return parts;
}

export function textDeltas(parts: readonly LanguageModelV4StreamPart[]): string[] {
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));
}
