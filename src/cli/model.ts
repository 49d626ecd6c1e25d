import type { ProviderV4 } from '@ai-sdk/provider';
import { createProviderRegistry, type LanguageModel } from 'ai';
import { boundedEventStreamFetch } from '../ai-sdk/bounded-event-stream-fetch.js';
import { jsonErrorAwareFetch } from '../ai-sdk/json-error-fetch.js';
import { keyGuardedFetch } from '../ai-sdk/key-guarded-fetch.js';
import { sendsInTheClear } from '../net/plain-http.js';
import { loadProviderPackage, type ProviderPackageName } from './load-provider-package.js';
import { UsageError } from './usage-error.js';

/** The providers `--model` names, each through its official AI SDK package. */
export type ModelProvider = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

/** A parsed `--model` value: `<provider>:<model-id>`. */
export interface ModelSpec {
  provider: ModelProvider;
  modelId: string;
}

/** What the CLI needs to know of each provider: its package, the variable its key is read from, what it requires. */
export interface ProviderSettings {
  /** How messages name it. */
  label: string;
  package: ProviderPackageName;
  /** The provider's conventional key variable; `openai-compatible` has none (name one with `--api-key-env`). */
  apiKeyEnv: string | undefined;
  /** The variable a base URL is taken from without `--base-url` (the one the provider package itself reads); `openai-compatible` has none. */
  baseURLEnv: string | undefined;
  /** Without a key the provider refuses every call, so the CLI refuses to start. */
  needsKey: boolean;
  /** There is no default endpoint (`openai-compatible`). */
  needsBaseURL: boolean;
}

export const PROVIDERS: Readonly<Record<ModelProvider, ProviderSettings>> = {
  openai: { label: 'OpenAI', package: '@ai-sdk/openai', apiKeyEnv: 'OPENAI_API_KEY', baseURLEnv: 'OPENAI_BASE_URL', needsKey: true, needsBaseURL: false },
  anthropic: { label: 'Anthropic', package: '@ai-sdk/anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', baseURLEnv: 'ANTHROPIC_BASE_URL', needsKey: true, needsBaseURL: false },
  google: {
    label: 'Google Generative AI',
    package: '@ai-sdk/google',
    apiKeyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseURLEnv: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    needsKey: true,
    needsBaseURL: false,
  },
  'openai-compatible': { label: 'OpenAI-compatible', package: '@ai-sdk/openai-compatible', apiKeyEnv: undefined, baseURLEnv: undefined, needsKey: false, needsBaseURL: true },
};

const MODEL_FORMS = (Object.keys(PROVIDERS) as ModelProvider[]).map((provider) => `${provider}:<model-id>`).join(', ');

/**
 * Parses a `--model` value: the provider, a colon, and the model id (which may contain colons).
 *
 * @example
 * parseModelSpec('anthropic:claude-sonnet-4-5')     // { provider: 'anthropic', modelId: 'claude-sonnet-4-5' }
 * parseModelSpec('openai-compatible:qwen2.5:7b')   // { provider: 'openai-compatible', modelId: 'qwen2.5:7b' }
 * @throws UsageError for anything else, listing the forms.
 */
export function parseModelSpec(text: string): ModelSpec {
  const colon = text.indexOf(':');
  const provider = text.slice(0, colon);
  const modelId = text.slice(colon + 1);
  if (colon < 0 || !Object.hasOwn(PROVIDERS, provider) || modelId.trim() === '') {
    throw new UsageError(`--model ${JSON.stringify(text)} is not one of ${MODEL_FORMS}`);
  }
  return { provider: provider as ModelProvider, modelId };
}

/** The variable a run reads its key from: `--api-key-env`, else the provider's own (none for `openai-compatible`). */
export function apiKeyVariable(spec: ModelSpec | undefined, apiKeyEnv: string | undefined): string | undefined {
  return apiKeyEnv ?? (spec ? PROVIDERS[spec.provider].apiKeyEnv : undefined);
}

export interface ModelSettings {
  spec: ModelSpec;
  /** `--base-url`; required for `openai-compatible`, and for the others a proxy or a local server. */
  baseURL?: string;
  /** `--api-key-env`: the variable that holds the key, instead of the provider's own. */
  apiKeyEnv?: string;
  /** Where the key is read from (the provider keys the CLI withdrew from its environment). */
  env: NodeJS.ProcessEnv;
  /** Where the provider's base URL variable (`OPENAI_BASE_URL`, …) is read from when there is no `--base-url`. Default `process.env`. */
  processEnv?: NodeJS.ProcessEnv;
  /** Send the key over plain http to a host other than this machine (`--allow-insecure-key`). */
  allowInsecureKey?: boolean;
  /**
   * `--structured-outputs`: the `openai-compatible` server takes a JSON schema as its response
   * format (`supportsStructuredOutputs: true`). Without it the schema goes into the instructions.
   */
  structuredOutputs?: boolean;
}

export interface ResolvedModel {
  model: LanguageModel;
  /** The API key that was read, so that it can be kept out of every output. */
  apiKey?: string;
}

/**
 * Creates the model a `--model` value names, through the AI SDK's provider
 * registry (`createProviderRegistry`) holding the one official provider it
 * needs: `openai` (`@ai-sdk/openai`, its chat-completions model),
 * `anthropic` (`@ai-sdk/anthropic`), `google` (`@ai-sdk/google`, the Gemini
 * API) or `openai-compatible` (`@ai-sdk/openai-compatible`, which reads
 * `reasoning_content` as reasoning and sends it back). The package is
 * imported only here, so the scripted model needs none of them installed.
 *
 * The key comes from the provider's own variable (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`) or `--api-key-env`;
 * `openai-compatible` needs `--base-url` and sends a key only from
 * `--api-key-env` (local servers need none, and a key for OpenAI must not go
 * to another server by accident). Without `--base-url` the base URL comes
 * from the provider's variable (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
 * `GOOGLE_GENERATIVE_AI_BASE_URL`) when it is set, and is given to the
 * provider, so that the same rules hold for both: an http or https URL, and
 * no key over plain http to another machine. An `openai-compatible` model takes
 * a JSON schema as its response format only with `structuredOutputs`
 * (`supportsStructuredOutputs: true`, the provider's default being off); the
 * agent puts the schema into the instructions otherwise. Every request goes through
 * {@link keyGuardedFetch}: no key follows a redirect to another origin.
 *
 * @example
 * const { model } = await resolveModel({ spec: parseModelSpec('anthropic:claude-sonnet-4-5'), env: { ANTHROPIC_API_KEY: 'sk-ant-…' } });
 * @throws UsageError when the key, the base URL or the provider's package is missing, or the key would cross the network in the clear.
 */
export async function resolveModel({ spec, baseURL: flag, apiKeyEnv, env, processEnv = process.env, allowInsecureKey = false, structuredOutputs = false }: ModelSettings): Promise<ResolvedModel> {
  const settings = PROVIDERS[spec.provider];
  const keyVariable = apiKeyVariable(spec, apiKeyEnv);
  const apiKey = (keyVariable !== undefined ? env[keyVariable] : undefined) || undefined;
  const base = chooseBaseURL(spec.provider, flag, processEnv);
  const baseURL = base?.url;
  if (apiKey !== undefined && base !== undefined && !allowInsecureKey && sendsInTheClear(base.url)) {
    throw new UsageError(
      `${base.source} ${base.url} is plain http to another machine: the API key in ${keyVariable} would cross the network unencrypted. Use https, unset ${keyVariable} (or name another variable with --api-key-env), or pass --allow-insecure-key`,
    );
  }
  if (settings.needsBaseURL && baseURL === undefined) {
    throw new UsageError(`--model ${spec.provider}:${spec.modelId} needs --base-url (the server's OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1)`);
  }
  if (structuredOutputs && spec.provider !== 'openai-compatible') {
    throw new UsageError(`--structured-outputs is for openai-compatible models; ${settings.label} sends the output schema in its own form`);
  }
  if (settings.needsKey && apiKey === undefined) {
    throw new UsageError(
      `the ${settings.label} API key is missing: set ${keyVariable}${apiKeyEnv === undefined ? ' (or name another variable with --api-key-env)' : ''}`,
    );
  }
  const provider = await createProvider(spec, {
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(baseURL !== undefined ? { baseURL } : {}),
    fetch: providerFetch({ keyed: apiKey !== undefined, allowInsecureKey }),
    structuredOutputs,
  });
  const registry = createProviderRegistry({ [spec.provider]: provider });
  return { model: registry.languageModel(`${spec.provider}:${spec.modelId}`), ...(apiKey !== undefined ? { apiKey } : {}) };
}

interface ProviderConnection {
  apiKey?: string;
  baseURL?: string;
  fetch: typeof fetch;
  /** Only `openai-compatible` takes it. */
  structuredOutputs: boolean;
}

/** The official provider for `spec.provider`, its package imported now. */
async function createProvider(spec: ModelSpec, { structuredOutputs, ...connection }: ProviderConnection): Promise<ProviderV4> {
  const named = `${spec.provider}:${spec.modelId}`;
  switch (spec.provider) {
    case 'openai': {
      const { createOpenAI } = await loadProviderPackage('@ai-sdk/openai', named);
      const openai = createOpenAI({ ...connection, apiKey: connection.apiKey ?? '' });
      // The chat-completions API, which every OpenAI-style server speaks (the package's default is the Responses API).
      return { specificationVersion: 'v4', languageModel: (id) => openai.chat(id), embeddingModel: (id) => openai.embeddingModel(id), imageModel: (id) => openai.imageModel(id) };
    }
    case 'anthropic': {
      const { createAnthropic } = await loadProviderPackage('@ai-sdk/anthropic', named);
      return createAnthropic(connection);
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await loadProviderPackage('@ai-sdk/google', named);
      return createGoogleGenerativeAI(connection);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await loadProviderPackage('@ai-sdk/openai-compatible', named);
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: connection.baseURL!, includeUsage: true, supportsStructuredOutputs: structuredOutputs, ...connection });
    }
  }
}

/** Where the base URL comes from: `--base-url`, else the provider's variable when set; undefined for the provider's default. */
function chooseBaseURL(provider: ModelProvider, flag: string | undefined, processEnv: NodeJS.ProcessEnv): { url: string; source: string } | undefined {
  if (flag !== undefined) return { url: flag, source: '--base-url' };
  const variable = PROVIDERS[provider].baseURLEnv;
  const value = variable !== undefined ? processEnv[variable] : undefined;
  if (variable === undefined || value === undefined || value === '') return undefined;
  if (!URL.canParse(value) || !['http:', 'https:'].includes(new URL(value).protocol)) {
    throw new UsageError(`${variable} must be an http or https URL (the ${PROVIDERS[provider].label} API's base URL), got "${value}"`);
  }
  return { url: value, source: variable };
}

/**
 * The fetch every provider gets: server error documents read as errors
 * (`jsonErrorAwareFetch`), the key kept on its server (`keyGuardedFetch`), and
 * an event that never ends cut off (`boundedEventStreamFetch`).
 * Without a key, the `Authorization` header the OpenAI-style providers always set is not sent at all.
 */
function providerFetch({ keyed, allowInsecureKey }: { keyed: boolean; allowInsecureKey: boolean }): typeof fetch {
  const guarded = keyGuardedFetch({ allowInsecureKey, fetch: boundedEventStreamFetch() });
  if (keyed) return jsonErrorAwareFetch(guarded);
  return jsonErrorAwareFetch((input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return guarded(input, { ...init, headers });
  });
}
