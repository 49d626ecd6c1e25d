import type { LanguageModel, Tool, ToolResultPart } from 'ai';
import * as internal from 'ai/internal';
import type { LanguageModelV4 } from '@ai-sdk/provider';

/**
 * The helpers loopchart takes from `ai/internal` — exported by the AI SDK but not part of its
 * semver promise. They are reached only through this module, never by a named import, so an
 * `ai` release that drops one cannot stop loopchart from loading: `directStep` needs all of
 * {@link DIRECT_STEP_INTERNALS} and agents fall back to `streamLanguageModelCallStep` (public API)
 * when one is missing; the other two have a fallback of their own below.
 * test/ai-internals-contract.test.ts checks each helper's behaviour against the installed `ai`.
 */
export const DIRECT_STEP_INTERNALS = [
  'standardizePrompt',
  'convertToLanguageModelPrompt',
  'prepareTools',
  'prepareToolChoice',
  'parseToolCall',
  'asLanguageModelUsage',
  'resolveLanguageModel',
] as const;

/** The `ai` versions loopchart is tested with (package.json `dependencies.ai`). */
export const TESTED_AI_RANGE = '>=7.0.173 <7.1.0';

type Internals = typeof internal;

/** The helpers of `names` that the installed `ai/internal` does not export as functions. */
export function missingAiInternals(names: readonly string[], module: object = internal): string[] {
  return names.filter((name) => typeof (module as Record<string, unknown>)[name] !== 'function');
}

/** The installed `ai/internal`, for the modules that checked what they need with {@link missingAiInternals}. */
export const aiInternals: Internals = internal;

/** Looked up once: every tool call asks. */
const hasCreateToolModelOutput = missingAiInternals(['createToolModelOutput']).length === 0;

/**
 * A tool's result as the model sees it: the AI SDK's `createToolModelOutput` (which applies the
 * tool's `toModelOutput`), or, if a release drops it, the same default conversion by hand.
 */
export async function toolModelOutput(args: ToolOutputArgs): Promise<ToolResultPart['output']> {
  // Spelled out, not spread from `args`: every tool call makes this object.
  if (hasCreateToolModelOutput) return internal.createToolModelOutput({ toolCallId: args.toolCallId, input: args.input, output: args.output, tool: args.tool, errorMode: 'none' });
  return fallbackToolModelOutput(args);
}

interface ToolOutputArgs {
  toolCallId: string;
  input: unknown;
  output: unknown;
  tool: Tool | undefined;
}

/** The AI SDK's default conversion of a successful tool result, for an `ai` without `createToolModelOutput`. */
export async function fallbackToolModelOutput(args: ToolOutputArgs): Promise<ToolResultPart['output']> {
  if (args.tool?.toModelOutput) return args.tool.toModelOutput({ toolCallId: args.toolCallId, input: args.input, output: args.output });
  if (typeof args.output === 'string') return { type: 'text', value: args.output };
  return { type: 'json', value: (args.output ?? null) as never };
}

/**
 * A model object as the provider interface (`LanguageModelV4`): the AI SDK's
 * `resolveLanguageModel` (which also adapts older specifications), or, if a release drops it,
 * the model itself when it already is a V4 model.
 */
export function asProviderModel(model: LanguageModel): LanguageModelV4 {
  if (missingAiInternals(['resolveLanguageModel']).length === 0) return internal.resolveLanguageModel(model);
  if (typeof model === 'object' && model.specificationVersion === 'v4') return model;
  throw new Error(`This model needs ai/internal.resolveLanguageModel, which the installed ai does not export; loopchart is tested with ai ${TESTED_AI_RANGE}.`);
}
