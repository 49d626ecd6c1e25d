import type { LanguageModel, LanguageModelUsage } from 'ai';
import { modelIdentity } from '../core/model-identity.js';
import { catalogueModel } from './catalogue-model.js';
import type { UsageCost } from '../core/cost.js';

type UsageCostModule = typeof import('./usage-cost.js');

/** The price catalogue is 0.8 MB of JavaScript (~0.2 s to load): it loads at the first priced step, once per process. */
let catalogue: Promise<UsageCostModule | undefined> | undefined;

function loadCatalogue(): Promise<UsageCostModule | undefined> {
  catalogue ??= import('./usage-cost.js').catch(() => undefined);
  return catalogue;
}

/** A model given by id string goes through the AI SDK's global provider, the AI Gateway unless set otherwise. */

/**
 * The cost of one step's LLM call with the model that made it (see `usageCost`). A model whose
 * provider the catalogue does not price (the scripted model, a local OpenAI-compatible server)
 * gets `undefined` without loading the catalogue.
 */
export async function stepCost(model: LanguageModel, usage: LanguageModelUsage): Promise<UsageCost | undefined> {
  const identity = modelIdentity(model);
  if (catalogueModel(identity) === undefined) return undefined;
  return (await loadCatalogue())?.usageCost(identity, usage);
}
