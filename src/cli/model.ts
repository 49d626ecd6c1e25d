import type { LanguageModel } from 'ai';
import { jsonErrorAwareFetch } from '../interop/json-error-fetch.js';
import { loadProviderPackage } from './load-provider-package.js';
import { UsageError } from './usage-error.js';

/** Which provider a `--model` value names. Both go through `@ai-sdk/openai`'s chat-completions model. */
export type ModelProvider = 'openai' | 'openai-compatible';

/** A parsed `--model` value: `openai:<id>` or `openai-compatible:<id>`. */
export interface ModelSpec {
  provider: ModelProvider;
  modelId: string;
}

const providers: readonly ModelProvider[] = ['openai', 'openai-compatible'];

export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';

/**
 * Parses a `--model` value.
 *
 * @example
 * parseModelSpec('openai:gpt-4o-mini')             // { provider: 'openai', modelId: 'gpt-4o-mini' }
 * parseModelSpec('openai-compatible:qwen2.5:7b')   // { provider: 'openai-compatible', modelId: 'qwen2.5:7b' }
 * @throws UsageError for anything else.
 */
export function parseModelSpec(text: string): ModelSpec {
  const colon = text.indexOf(':');
  const provider = text.slice(0, colon) as ModelProvider;
  const modelId = text.slice(colon + 1);
  if (colon < 0 || !providers.includes(provider) || modelId.trim() === '') {
    throw new UsageError(`--model ${JSON.stringify(text)} is not one of openai:<model-id> or openai-compatible:<model-id>`);
  }
  return { provider, modelId };
}

export interface ModelSettings {
  spec: ModelSpec;
  /** `--base-url`; required for `openai-compatible`. */
  baseURL?: string;
  /** The environment variable that holds the API key. Default `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Where the key is read from. */
  env: NodeJS.ProcessEnv;
  /** Send the key over plain http to a host other than this machine (`--allow-insecure-key`). */
  allowInsecureKey?: boolean;
}

export interface ResolvedModel {
  model: LanguageModel;
  /** The API key that was read, so that it can be kept out of every output. */
  apiKey?: string;
}

/**
 * Creates the chat-completions model a `--model` value names, with
 * `createOpenAI({ apiKey, baseURL }).chat(modelId)` from `@ai-sdk/openai`.
 *
 * `openai` needs an API key; `openai-compatible` needs `--base-url` and sends
 * the key only when the variable is set (local servers often need none).
 * Without `--base-url`, `openai` uses `OPENAI_BASE_URL` or the OpenAI API.
 * `@ai-sdk/openai` is imported only here, so the scripted model needs no
 * provider package installed.
 *
 * @throws UsageError when the key, the base URL or `@ai-sdk/openai` is missing.
 */
export async function resolveModel({ spec, baseURL, apiKeyEnv = DEFAULT_API_KEY_ENV, env, allowInsecureKey = false }: ModelSettings): Promise<ResolvedModel> {
  const apiKey = env[apiKeyEnv] || undefined;
  if (apiKey !== undefined && baseURL !== undefined && !allowInsecureKey && sendsInTheClear(baseURL)) {
    throw new UsageError(
      `--base-url ${baseURL} is plain http to another machine: the API key in ${apiKeyEnv} would cross the network unencrypted. Use https, unset ${apiKeyEnv} (or name another variable with --api-key-env), or pass --allow-insecure-key`,
    );
  }
  if (spec.provider === 'openai-compatible' && baseURL === undefined) {
    throw new UsageError(`--model openai-compatible:${spec.modelId} needs --base-url (the server's OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1)`);
  }
  if (spec.provider === 'openai' && apiKey === undefined) {
    throw new UsageError(
      `the OpenAI API key is missing: set ${apiKeyEnv}${apiKeyEnv === DEFAULT_API_KEY_ENV ? ' (or name another variable with --api-key-env)' : ''}`,
    );
  }
  const { createOpenAI } = await loadProviderPackage('@ai-sdk/openai', `${spec.provider}:${spec.modelId}`);
  const provider = createOpenAI({
    name: spec.provider,
    apiKey: apiKey ?? '',
    ...(baseURL !== undefined ? { baseURL } : {}),
    fetch: jsonErrorAwareFetch(apiKey === undefined ? fetchWithoutAuthorization : fetch),
  });
  return { model: provider.chat(spec.modelId), ...(apiKey !== undefined ? { apiKey } : {}) };
}

/** A plain-http URL whose host is not this machine (loopback stays allowed: local servers). */
export function sendsInTheClear(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host));
}

/** The provider always sets `Authorization: Bearer <key>`; without a key, send no such header at all. */
const fetchWithoutAuthorization: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.delete('authorization');
  return fetch(input, { ...init, headers });
};
