import type { FinishReason, LanguageModel, LanguageModelUsage, Output } from 'ai';
import { errorMessage } from '../core/error-message.js';
import type { RunError } from '../core/result.js';

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
): Promise<{ ok: true; value: unknown } | { ok: false; error: RunError; problem: string }> {
  try {
    const value: unknown = await output.parseCompleteOutput(
      { text: step.text },
      { response: { id: '', timestamp: new Date(), modelId: typeof model === 'string' ? model : model.modelId }, usage: step.usage, finishReason: step.finishReason },
    );
    return { ok: true, value };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause === undefined ? '' : ` (${errorMessage(cause).split('\n')[0]})`;
    return { ok: false, error: { kind: 'invalid-output', message: `${errorMessage(error)}${detail}`, retryAfterMs: 0 }, problem: outputProblem(error) };
  }
}

/**
 * What did not match, for the model to read: the schema's complaints, each with its path, when the
 * innermost cause lists them (zod's `issues`, or their JSON as a message), else that cause's message
 * (why the text is not JSON), after the AI SDK's own summary.
 *
 * @example
 * outputProblem(noObjectGeneratedError) // 'No object generated: response did not match schema. celsius: Invalid input: expected number, received string'
 */
export function outputProblem(error: unknown): string {
  let innermost = error;
  for (let depth = 0; depth < 8; depth++) {
    const cause = (innermost as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    innermost = cause;
  }
  const summary = errorMessage(error);
  if (innermost === error) return summary;
  const issues = issuesOf(innermost);
  const detail = issues ? issues.map(({ path, message }) => (path.length > 0 ? `${path.join('.')}: ${message}` : message)).join('; ') : errorMessage(innermost);
  return `${summary} ${detail}`;
}

type Issue = { path: Array<string | number>; message: string };

function issuesOf(error: unknown): Issue[] | undefined {
  const isIssues = (value: unknown): value is Issue[] =>
    Array.isArray(value) && value.length > 0 && value.every((issue) => Array.isArray((issue as Issue | null)?.path) && typeof (issue as Issue).message === 'string');
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (isIssues(issues)) return issues;
  try {
    const parsed: unknown = JSON.parse(errorMessage(error));
    return isIssues(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
