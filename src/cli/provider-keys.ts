/**
 * The environment variables the AI SDK's providers read their API keys from.
 * The CLI takes every one of them (and any other `*_API_KEY`) out of its own
 * environment before a run starts, whatever model the run uses, so that no
 * tool — `bash` inherits the environment — can read a key, and keeps their
 * values to redact from every output.
 */
export const PROVIDER_KEY_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GEMINI_API_KEY',
  'AZURE_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'XAI_API_KEY',
  'DEEPSEEK_API_KEY',
  'COHERE_API_KEY',
  'TOGETHER_AI_API_KEY',
  'FIREWORKS_API_KEY',
  'OPENROUTER_API_KEY',
  'PERPLEXITY_API_KEY',
  'CEREBRAS_API_KEY',
  'DEEPINFRA_API_KEY',
  'AI_GATEWAY_API_KEY',
  'DASHSCOPE_API_KEY',
  'MOONSHOT_API_KEY',
  'HF_TOKEN',
  'HUGGINGFACE_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
];

/** Whether `name` holds a provider key: a known one, the run's `--api-key-env`, or any `*_API_KEY`. */
export function isProviderKeyVariable(name: string, apiKeyEnv: string | undefined): boolean {
  return name === apiKeyEnv || PROVIDER_KEY_VARIABLES.includes(name) || /(^|_)API_KEY$/.test(name);
}

/**
 * Removes every provider key variable from `env` and returns what was
 * removed (name → value), for the model to read its key from and for
 * redaction. Empty values are removed and not returned.
 */
export function withdrawProviderKeys(env: NodeJS.ProcessEnv, apiKeyEnv: string | undefined): Record<string, string> {
  const withdrawn: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    if (!isProviderKeyVariable(name, apiKeyEnv)) continue;
    const value = env[name];
    delete env[name];
    if (value) withdrawn[name] = value;
  }
  return withdrawn;
}
