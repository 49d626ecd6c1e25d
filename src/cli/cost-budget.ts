import type { LanguageModel, StopCondition, ToolSet } from 'ai';
import { isCostOver } from '../cost/is-cost-over.js';
import { stepCost } from '../cost/step-cost.js';
import { usageFrom } from '../core/usage.js';
import { modelIdentity } from '../core/model-identity.js';
import { UsageError } from './usage-error.js';

/**
 * The stop condition of `--max-cost` (or a script's `maxCost`; `source` says which), once the model
 * is known to have a price: a budget on a model without one could never stop the run, so that is
 * a usage error rather than a silent no-op.
 *
 * @throws UsageError when the price catalogue does not know the model.
 */
export async function costBudget(model: LanguageModel, maxUsd: number, source = '--max-cost'): Promise<StopCondition<ToolSet>> {
  if ((await stepCost(model, usageFrom({ inputTokens: 0, outputTokens: 0 }))) === undefined) {
    const { provider, modelId } = modelIdentity(model);
    throw new UsageError(`${source} needs a model with a known price, and ${modelId} (provider ${provider}) has none in the price catalogue, so the budget could never stop the run`);
  }
  return isCostOver(maxUsd);
}
