import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { asToolCallsFinish } from './tool-calls-finish.js';
import { ToolTagParser } from './tool-tag-parser.js';

/**
 * The non-streaming counterpart of `toolCallsFromTextStream`: each text part
 * of a generate result is split into its text and the tool calls written in
 * it, in order, and the finish reason becomes `tool-calls` when there were any.
 *
 * @example
 * const result = await doGenerate();
 * return toolCallsFromTextContent(result, () => crypto.randomUUID());
 */
export function toolCallsFromTextContent(
  result: LanguageModelV4GenerateResult,
  generateToolCallId: () => string,
): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  let toolCallCount = 0;
  for (const part of result.content) {
    if (part.type !== 'text') {
      content.push(part);
      continue;
    }
    const parser = new ToolTagParser();
    for (const event of [...parser.feed(part.text), ...parser.flush()]) {
      if (event.type === 'text') {
        content.push({ ...part, text: event.text });
      } else {
        content.push({ type: 'tool-call', toolCallId: generateToolCallId(), toolName: event.toolCall.toolName, input: event.toolCall.input });
        toolCallCount += 1;
      }
    }
  }
  if (toolCallCount === 0) return result;
  return { ...result, content, finishReason: asToolCallsFinish(result.finishReason) };
}
