import type { FinishReason, LanguageModel, LanguageModelUsage, Output } from 'ai';
import { errorMessage } from '../errors/error-message.js';
import type { RunError } from '../result.js';

/**
 * Whether a step is the run's answer, to be parsed with the agent's `output`:
 * it stopped (`finishReason: 'stop'`) and called no tool. A step cut short
 * (`length`, `content-filter`) ends the run its own way and is not parsed.
 *
 * @example
 * isFinalAnswer({ finishReason: 'stop', toolCalls: [] }) // true
 */
export function isFinalAnswer(step: { finishReason: FinishReason; toolCalls: readonly unknown[] }): boolean {
  return step.finishReason === 'stop' && step.toolCalls.length === 0;
}

/**
 * The final answer parsed and validated with the agent's `output`
 * (`Output.object({ schema })` and the rest of the AI SDK's `Output`), or an
 * `invalid-output` error saying why not. The error asks for no wait before a
 * retry: the model answers again at once, per the retry policy's attempts.
 *
 * @example
 * const parsed = await parseFinalAnswer(Output.object({ schema }), { text: '{"a":1}', finishReason: 'stop', usage }, model);
 * if (parsed.ok) console.log(parsed.value);
 */
export async function parseFinalAnswer(
  output: Output.Output,
  step: { text: string; finishReason: FinishReason; usage: LanguageModelUsage },
  model: LanguageModel,
): Promise<{ ok: true; value: unknown } | { ok: false; error: RunError }> {
  try {
    const value: unknown = await output.parseCompleteOutput(
      { text: step.text },
      { response: { id: '', timestamp: new Date(), modelId: typeof model === 'string' ? model : model.modelId }, usage: step.usage, finishReason: step.finishReason },
    );
    return { ok: true, value };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause === undefined ? '' : ` (${errorMessage(cause).split('\n')[0]})`;
    return { ok: false, error: { kind: 'invalid-output', message: `${errorMessage(error)}${detail}`, retryAfterMs: 0 } };
  }
}
