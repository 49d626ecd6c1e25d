import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** The usage a scripted call reports. */
export const scriptedUsage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: undefined, reasoning: undefined },
};

/** A call that streams one text block and finishes with `stop`. */
export const textTurn =
  (id: string, text: string) => (): LanguageModelV4StreamPart[] => [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id },
    { type: 'text-delta', id, delta: text },
    { type: 'text-end', id },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: scriptedUsage },
  ];

/**
 * A model whose calls stream the provider parts of `turns`, in order (each turn made afresh for its
 * call), and that records the prompt of each call.
 *
 * @example
 * ```ts
 * const { model, prompts } = streamPartsModel([textTurn('t1', 'Hi.')]);
 * await createAgent({ model }).run('hello');
 * prompts[0]; // the first call's prompt
 * ```
 */
export function streamPartsModel(turns: Array<() => LanguageModelV4StreamPart[]>) {
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  let call = 0;
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      prompts.push(options.prompt);
      const parts = turns[call++]!();
      return { stream: new ReadableStream({ start: (controller) => (parts.forEach((part) => controller.enqueue(part)), controller.close()) }) };
    },
  });
  return { model, prompts };
}
