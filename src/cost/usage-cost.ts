import { calcPrice, type Usage } from '@pydantic/genai-prices';
import type { LanguageModelUsage } from 'ai';
import { catalogueModel, type ModelIdentity } from './catalogue-model.js';
import type { UsageCost } from '../core/cost.js';

/** The AI SDK's usage in the catalogue's terms: its cache and reasoning counts are parts of the input and output totals, as the AI SDK's are. */
function catalogueUsage(usage: LanguageModelUsage): Usage {
  return {
    input_tokens: usage.inputTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    cache_read_tokens: usage.inputTokenDetails?.cacheReadTokens,
    cache_write_tokens: usage.inputTokenDetails?.cacheWriteTokens,
    output_reasoning_tokens: usage.outputTokenDetails?.reasoningTokens,
  };
}

/**
 * What one LLM call's usage cost, at the list prices of the price catalogue
 * `@pydantic/genai-prices` (bundled data, no network): cached input at its own rate, and
 * long-context tiers by the call's size, so price each call on its own and add the costs.
 * `undefined` when the catalogue has no price for the model, when its provider is not one it
 * prices (see `catalogueModel`), or when the usage is inconsistent (more cached tokens than input
 * tokens, say): a cost is a figure for people, and an unknown one is left out rather than guessed.
 *
 * @example
 * const cost = usageCost(
 *   { provider: 'openai.chat', modelId: 'gpt-4o-mini' },
 *   { inputTokens: 1000, outputTokens: 100, totalTokens: 1100, inputTokenDetails: { cacheReadTokens: 400, noCacheTokens: 600, cacheWriteTokens: undefined }, outputTokenDetails: { textTokens: 100, reasoningTokens: undefined } },
 * );
 * // { total: 0.00018, input: 0.00012, output: 0.00006, currency: 'USD' }
 */
export function usageCost(model: ModelIdentity, usage: LanguageModelUsage): UsageCost | undefined {
  const listed = catalogueModel(model);
  if (listed === undefined) return undefined;
  let price: ReturnType<typeof calcPrice>;
  try {
    price = calcPrice(catalogueUsage(usage), listed.modelId, { providerId: listed.providerId });
  } catch {
    // The catalogue rejects usage it cannot split (cache reads above the input total, say).
    return undefined;
  }
  if (price === null) return undefined;
  return { total: price.total_price, input: price.input_price, output: price.output_price, currency: 'USD' };
}
