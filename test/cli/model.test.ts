import { describe, expect, it } from 'vitest';
import { parseModelSpec, resolveModel } from '../../src/cli/model.js';
import { UsageError } from '../../src/cli/usage-error.js';

describe('--model', () => {
  it('parses <provider>:<id> for openai, anthropic, google and openai-compatible, keeping colons in the id', () => {
    expect(parseModelSpec('openai:gpt-4o-mini')).toEqual({ provider: 'openai', modelId: 'gpt-4o-mini' });
    expect(parseModelSpec('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    expect(parseModelSpec('google:gemini-2.5-flash')).toEqual({ provider: 'google', modelId: 'gemini-2.5-flash' });
    expect(parseModelSpec('openai-compatible:qwen2.5:7b')).toEqual({ provider: 'openai-compatible', modelId: 'qwen2.5:7b' });
  });

  it.each(['gpt-4o', 'openai:', 'mistral:large', ':gpt', 'OpenAI:gpt-4o', 'toString:x', '__proto__:x'])('rejects %j, listing every form', (text) => {
    expect(() => parseModelSpec(text)).toThrow(UsageError);
    expect(() => parseModelSpec(text)).toThrow('openai:<model-id>, anthropic:<model-id>, google:<model-id>, openai-compatible:<model-id>');
  });

  it('reads each provider\'s key from its own variable, through the AI SDK provider registry', async () => {
    const anthropic = await resolveModel({ spec: parseModelSpec('anthropic:claude-sonnet-4-5'), env: { ANTHROPIC_API_KEY: 'sk-ant-1', OPENAI_API_KEY: 'sk-1' } });
    expect(anthropic.apiKey).toBe('sk-ant-1');
    expect(anthropic.model).toMatchObject({ modelId: 'claude-sonnet-4-5', provider: 'anthropic.messages' });
    const google = await resolveModel({ spec: parseModelSpec('google:gemini-2.5-flash'), env: { GOOGLE_GENERATIVE_AI_API_KEY: 'g-1' } });
    expect(google.apiKey).toBe('g-1');
    expect(google.model).toMatchObject({ modelId: 'gemini-2.5-flash', provider: 'google.generative-ai' });
    await expect(resolveModel({ spec: parseModelSpec('anthropic:claude'), env: { OPENAI_API_KEY: 'sk-1' } })).rejects.toThrow(/Anthropic API key is missing: set ANTHROPIC_API_KEY/);
    await expect(resolveModel({ spec: parseModelSpec('google:gemini'), env: {} })).rejects.toThrow(/set GOOGLE_GENERATIVE_AI_API_KEY/);
  });

  it('sends openai-compatible a key only from --api-key-env, never OPENAI_API_KEY', async () => {
    const withoutKey = await resolveModel({ spec: parseModelSpec('openai-compatible:m'), baseURL: 'http://127.0.0.1:1/v1', env: { OPENAI_API_KEY: 'sk-1' } });
    expect(withoutKey.apiKey).toBeUndefined();
    const keyed = await resolveModel({ spec: parseModelSpec('openai-compatible:m'), baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', env: { DEEPSEEK_API_KEY: 'ds-1' } });
    expect(keyed.apiKey).toBe('ds-1');
  });

  it('creates the provider chat model with the given id; openai-compatible is named so', async () => {
    const openai = await resolveModel({ spec: parseModelSpec('openai:gpt-4o-mini'), env: { OPENAI_API_KEY: 'sk-1' } });
    expect(openai.apiKey).toBe('sk-1');
    expect(openai.model).toMatchObject({ modelId: 'gpt-4o-mini', provider: 'openai.chat' });
    const compatible = await resolveModel({ spec: parseModelSpec('openai-compatible:llama3'), baseURL: 'http://127.0.0.1:1/v1', env: {} });
    expect(compatible.apiKey).toBeUndefined();
    expect(compatible.model).toMatchObject({ modelId: 'llama3', provider: 'openai-compatible.chat' });
  });

  it('reads the key from the variable --api-key-env names; an empty one counts as missing', async () => {
    expect((await resolveModel({ spec: parseModelSpec('openai:gpt-4o'), apiKeyEnv: 'MY_KEY', env: { MY_KEY: 'k-2' } })).apiKey).toBe('k-2');
    await expect(resolveModel({ spec: parseModelSpec('openai:gpt-4o'), env: { OPENAI_API_KEY: '' } })).rejects.toThrow(/API key is missing: set OPENAI_API_KEY/);
    await expect(resolveModel({ spec: parseModelSpec('openai:gpt-4o'), apiKeyEnv: 'MY_KEY', env: { OPENAI_API_KEY: 'other' } })).rejects.toThrow(/set MY_KEY$/);
  });

  it('gives an openai-compatible model structured outputs only with --structured-outputs, and refuses it for the others', async () => {
    const local = { spec: parseModelSpec('openai-compatible:llama3'), baseURL: 'http://127.0.0.1:1/v1', env: {} };
    expect((await resolveModel(local)).model).toMatchObject({ supportsStructuredOutputs: false });
    expect((await resolveModel({ ...local, structuredOutputs: true })).model).toMatchObject({ supportsStructuredOutputs: true });
    await expect(resolveModel({ spec: parseModelSpec('openai:gpt-4o'), env: { OPENAI_API_KEY: 'sk-1' }, structuredOutputs: true })).rejects.toThrow(
      '--structured-outputs is for openai-compatible models; OpenAI sends the output schema in its own form',
    );
  });

  it('requires --base-url for openai-compatible', async () => {
    await expect(resolveModel({ spec: parseModelSpec('openai-compatible:llama3'), env: {} })).rejects.toThrow(/needs --base-url/);
  });
});
