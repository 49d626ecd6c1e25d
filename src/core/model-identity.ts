import type { LanguageModel } from 'ai';

/** A model as the AI SDK names it: `model.provider` (e.g. `'openai.chat'`) and `model.modelId`. */
export interface ModelIdentity {
  provider: string;
  modelId: string;
}

/**
 * The identity of any `LanguageModel`: a model object's own `provider` and `modelId`; a plain
 * string is a model id of the AI SDK's global provider, the gateway by default.
 *
 * @example
 * modelIdentity('openai/gpt-5') // { provider: 'gateway', modelId: 'openai/gpt-5' }
 */
export function modelIdentity(model: LanguageModel): ModelIdentity {
  return typeof model === 'string' ? { provider: 'gateway', modelId: model } : { provider: model.provider, modelId: model.modelId };
}
