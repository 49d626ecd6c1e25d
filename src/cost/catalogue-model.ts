import type { ModelIdentity } from '../core/model-identity.js';

export type { ModelIdentity };

/** A model as the price catalogue (`@pydantic/genai-prices`) names it. */
export interface CatalogueModel {
  providerId: string;
  modelId: string;
}

/**
 * The catalogue's provider id for the AI SDK's provider name (the part of `model.provider` before
 * the first dot; the gateway's model ids start with the same names). A provider not named here is
 * not priced: an OpenAI-compatible server of one's own (`openai-compatible.chat`, `ollama.chat`…)
 * is not billed at OpenAI's prices even when its model has an OpenAI model's name.
 */
const catalogueProviders: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  vertex: 'google',
  deepseek: 'deepseek',
  mistral: 'mistral',
  xai: 'x-ai',
  groq: 'groq',
  azure: 'azure',
  'amazon-bedrock': 'aws',
  togetherai: 'together',
  fireworks: 'fireworks',
  cohere: 'cohere',
  perplexity: 'perplexity',
  cerebras: 'cerebras',
  openrouter: 'openrouter',
  moonshotai: 'moonshotai',
};

/** The AI SDK provider names that have prices, for the docs and tests. */
export const pricedProviders: readonly string[] = Object.keys(catalogueProviders);

/**
 * Where the price catalogue lists a model, or `undefined` when its provider is not one it prices.
 * The AI Gateway's ids (`gateway` provider, `openai/gpt-4o`) are priced as their maker's model.
 *
 * @example
 * catalogueModel({ provider: 'openai.chat', modelId: 'gpt-4o-mini' });      // { providerId: 'openai', modelId: 'gpt-4o-mini' }
 * catalogueModel({ provider: 'gateway', modelId: 'xai/grok-4' });           // { providerId: 'x-ai', modelId: 'grok-4' }
 * catalogueModel({ provider: 'openai-compatible.chat', modelId: 'llama3' }); // undefined
 */
export function catalogueModel({ provider, modelId }: ModelIdentity): CatalogueModel | undefined {
  const name = provider.split('.', 1)[0] ?? provider;
  if (name === 'gateway') {
    const slash = modelId.indexOf('/');
    return slash > 0 ? catalogueModel({ provider: modelId.slice(0, slash), modelId: modelId.slice(slash + 1) }) : undefined;
  }
  const providerId = Object.hasOwn(catalogueProviders, name) ? catalogueProviders[name] : undefined;
  return providerId === undefined ? undefined : { providerId, modelId };
}
