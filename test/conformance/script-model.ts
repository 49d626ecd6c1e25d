import type { LanguageModelV4CallOptions, LanguageModelV4Content, LanguageModelV4GenerateResult, LanguageModelV4StreamPart, SharedV4Warning } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** One model call of a scenario: the provider's stream parts, or an error `doStream` rejects with. */
export type ScriptedCall = { parts: LanguageModelV4StreamPart[]; holdAfter?: number } | { reject: unknown };

const usage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: undefined, reasoning: undefined },
};

/** The parts of one call, as a provider streams them: `stream-start`, the content, `finish`. */
export function call(
  content: LanguageModelV4StreamPart[],
  options: { finishReason?: 'stop' | 'tool-calls' | 'length'; warnings?: SharedV4Warning[]; modelId?: string; holdAfter?: number } = {},
): ScriptedCall {
  const hasToolCall = content.some((part) => part.type === 'tool-call' && !part.providerExecuted);
  const finishReason = options.finishReason ?? (hasToolCall ? 'tool-calls' : 'stop');
  return {
    parts: [
      { type: 'stream-start', warnings: options.warnings ?? [] },
      ...(options.modelId ? [{ type: 'response-metadata' as const, id: `resp-${options.modelId}`, modelId: options.modelId }] : []),
      ...content,
      { type: 'finish', finishReason: { unified: finishReason, raw: finishReason }, usage },
    ],
    ...(options.holdAfter !== undefined ? { holdAfter: options.holdAfter } : {}),
  };
}

export const text = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id, delta })),
  { type: 'text-end', id },
];

export const reasoning = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: 'reasoning-start', id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'reasoning-delta', id, delta })),
  { type: 'reasoning-end', id },
];

/** A tool call streamed as a provider does: its input written in pieces, then the call. */
export const toolCall = (toolCallId: string, toolName: string, input: string): LanguageModelV4StreamPart[] => [
  { type: 'tool-input-start', id: toolCallId, toolName },
  { type: 'tool-input-delta', id: toolCallId, delta: input },
  { type: 'tool-input-end', id: toolCallId },
  { type: 'tool-call', toolCallId, toolName, input },
];

/** The same call for `doGenerate` (what `generate()` of `ToolLoopAgent` uses): the streamed content joined. */
function generateResult(parts: LanguageModelV4StreamPart[]): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  const blocks = new Map<string, { type: 'text' | 'reasoning'; text: string }>();
  let result: Omit<LanguageModelV4GenerateResult, 'content'> | undefined;
  let warnings: SharedV4Warning[] = [];
  let response: LanguageModelV4GenerateResult['response'];
  for (const part of parts) {
    if (part.type === 'stream-start') warnings = part.warnings;
    else if (part.type === 'response-metadata') response = { ...(part.id ? { id: part.id } : {}), ...(part.modelId ? { modelId: part.modelId } : {}) };
    else if (part.type === 'text-start' || part.type === 'reasoning-start') {
      const block = { type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' };
      blocks.set(part.id, block);
      content.push(block);
    } else if (part.type === 'text-delta' || part.type === 'reasoning-delta') blocks.get(part.id)!.text += part.delta;
    else if (part.type === 'tool-call' || part.type === 'tool-result' || part.type === 'source' || part.type === 'file' || part.type === 'reasoning-file') content.push(part);
    else if (part.type === 'finish') result = { finishReason: part.finishReason, usage: part.usage, warnings, ...(response ? { response } : {}) };
  }
  if (!result) throw new Error('scripted model: a call without a finish part cannot be generated');
  return { ...result, content };
}

/**
 * A `MockLanguageModelV4` that answers its calls from the script, in order, and records the prompts.
 * A call with `holdAfter` stops after that many parts until the call is aborted; `held` resolves then.
 */
export function scriptedModel(script: readonly ScriptedCall[]) {
  let index = 0;
  let onHold: () => void = () => {};
  const held = new Promise<void>((resolve) => (onHold = resolve));
  /** Every call, streamed or generated, in order. */
  const calls: LanguageModelV4CallOptions[] = [];
  const next = (options: LanguageModelV4CallOptions) => {
    calls.push(options);
    const scripted = script[index++];
    if (scripted === undefined) throw new Error(`scripted model: no call ${index} (the script has ${script.length})`);
    if ('reject' in scripted) throw scripted.reject;
    return scripted;
  };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => generateResult(next(options).parts),
    doStream: async (options) => {
      const { abortSignal } = options;
      const scripted = next(options);
      let position = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            if (position === scripted.holdAfter) {
              onHold();
              await new Promise<void>((resolve) => {
                if (abortSignal?.aborted) resolve();
                abortSignal?.addEventListener('abort', () => resolve(), { once: true });
              });
              controller.error(abortSignal?.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
              return;
            }
            const part = scripted.parts[position++];
            if (part === undefined) controller.close();
            else controller.enqueue(part);
          },
        }),
      };
    },
  });
  return Object.assign(model, { held, calls });
}
