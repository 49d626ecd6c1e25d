import type { LanguageModelV4FinishReason } from '@ai-sdk/provider';

/**
 * The finish reason of an answer in which tool calls were found: `tool-calls`
 * replaces a normal stop (`stop` or `other`); a finish that says the answer
 * was cut off, filtered or failed is kept, because the calls may be incomplete.
 *
 * @example
 * asToolCallsFinish({ unified: 'stop', raw: 'stop' })     // { unified: 'tool-calls', raw: 'stop' }
 * asToolCallsFinish({ unified: 'length', raw: 'length' }) // unchanged
 */
export function asToolCallsFinish(finishReason: LanguageModelV4FinishReason): LanguageModelV4FinishReason {
  return finishReason.unified === 'stop' || finishReason.unified === 'other' ? { ...finishReason, unified: 'tool-calls' } : finishReason;
}
