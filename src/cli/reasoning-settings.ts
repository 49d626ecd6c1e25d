import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { ModelProvider } from './model.js';
import { UsageError } from './usage-error.js';

/** `--reasoning-effort`: how much the model reasons before it answers. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

export const reasoningEfforts: readonly ReasoningEffort[] = ['low', 'medium', 'high'];

/** What the command line asks of the model's reasoning. */
export interface ReasoningRequest {
  /** `--reasoning-effort`. */
  effort?: ReasoningEffort;
  /** `--thinking-budget N`: tokens the model may think for. */
  budget?: number;
}

/** The call settings a reasoning request becomes for one provider. */
export interface ReasoningCallSettings {
  /** The AI SDK's portable effort, which each provider maps to its own option for the model at hand. */
  reasoning?: LanguageModelV4CallOptions['reasoning'];
  providerOptions?: NonNullable<LanguageModelV4CallOptions['providerOptions']>;
}

/**
 * The call settings of `--reasoning-effort` and `--thinking-budget` for `provider`:
 *
 * - an effort goes as the AI SDK's `reasoning` call setting, which each provider maps for the model
 *   at hand (OpenAI and OpenAI-compatible servers: `reasoning_effort`; Anthropic: `effort` with
 *   adaptive thinking, or a thinking budget; Google: `thinkingLevel` or `thinkingBudget`);
 * - a budget goes in the provider's own options: Anthropic `thinking: { type: 'enabled', budgetTokens }`,
 *   Google `thinkingConfig.thinkingBudget`. OpenAI's APIs take no budget: that is a usage error.
 *
 * Google sends its thoughts back only when asked (`includeThoughts`), so it is asked whenever either is given.
 *
 * @example
 * reasoningCallSettings('anthropic', { budget: 4000 }) // { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } } }
 * reasoningCallSettings('openai', { effort: 'high' })   // { reasoning: 'high' }
 * @throws UsageError for a budget on a provider without one, or both at once.
 */
export function reasoningCallSettings(provider: ModelProvider, { effort, budget }: ReasoningRequest): ReasoningCallSettings {
  if (effort !== undefined && budget !== undefined) throw new UsageError('--reasoning-effort and --thinking-budget both set how much the model thinks; give one of them');
  if (effort === undefined && budget === undefined) return {};
  const includeThoughts = provider === 'google' ? { providerOptions: { google: { thinkingConfig: { includeThoughts: true, ...(budget !== undefined ? { thinkingBudget: budget } : {}) } } } } : {};
  if (effort !== undefined) return { reasoning: effort, ...includeThoughts };
  switch (provider) {
    case 'anthropic':
      return { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: budget! } } } };
    case 'google':
      return includeThoughts;
    case 'openai':
    case 'openai-compatible':
      throw new UsageError(`--thinking-budget: ${provider} models take no thinking budget; use --reasoning-effort low|medium|high`);
  }
}

/**
 * The model with the settings on every call (over what the call itself says, except where the call sets them).
 *
 * @example
 * const thinking = withReasoning(model, reasoningCallSettings('anthropic', { budget: 4000 }));
 */
export function withReasoning(model: LanguageModelV4, settings: ReasoningCallSettings): LanguageModelV4 {
  if (settings.reasoning === undefined && settings.providerOptions === undefined) return model;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v4',
      transformParams: async ({ params }) => ({
        ...params,
        ...(settings.reasoning !== undefined && params.reasoning === undefined ? { reasoning: settings.reasoning } : {}),
        ...(settings.providerOptions !== undefined ? { providerOptions: mergeProviderOptions(settings.providerOptions, params.providerOptions) } : {}),
      }),
    },
  });
}

type ProviderOptions = NonNullable<LanguageModelV4CallOptions['providerOptions']>;

/** `defaults` under `call`, one level per provider. */
function mergeProviderOptions(defaults: ProviderOptions, call: ProviderOptions | undefined): ProviderOptions {
  const merged: ProviderOptions = { ...defaults };
  for (const [provider, options] of Object.entries(call ?? {})) merged[provider] = { ...merged[provider], ...options };
  return merged;
}
