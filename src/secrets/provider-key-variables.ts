/**
 * The environment variables that hold provider API keys: the ones the AI
 * SDK's providers read, and any other `*_API_KEY`. The CLI withdraws them
 * from its own environment; the `bash` tool and sandboxed MCP servers never
 * get them, whoever embeds loopchart.
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

/**
 * Whether `name` holds a provider key: a known one, `extraKeyVariable` (the
 * CLI's `--api-key-env`), or any `*_API_KEY`.
 *
 * @example
 * isProviderKeyVariable('OPENAI_API_KEY')          // true
 * isProviderKeyVariable('MY_API_KEY')              // true
 * isProviderKeyVariable('LLM_SECRET', 'LLM_SECRET') // true
 * isProviderKeyVariable('PATH')                    // false
 */
export function isProviderKeyVariable(name: string, extraKeyVariable?: string): boolean {
  return name === extraKeyVariable || PROVIDER_KEY_VARIABLES.includes(name) || /(^|_)API_KEY$/.test(name);
}

/**
 * A copy of `env` without the provider key variables, for a process that
 * must not read a key (a `bash` command, a sandboxed MCP server).
 *
 * @example
 * withoutProviderKeys({ PATH: '/usr/bin', OPENAI_API_KEY: 'sk-…' }) // { PATH: '/usr/bin' }
 */
export function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isProviderKeyVariable(name)));
}
