import { describe, expect, it } from 'vitest';
import { parseModelSpec, resolveModel } from '../../src/cli/model.js';
import { UsageError } from '../../src/cli/usage-error.js';

describe('--model', () => {
  it('parses openai:<id> and openai-compatible:<id>, keeping colons in the id', () => {
    expect(parseModelSpec('openai:gpt-4o-mini')).toEqual({ provider: 'openai', modelId: 'gpt-4o-mini' });
    expect(parseModelSpec('openai-compatible:qwen2.5:7b')).toEqual({ provider: 'openai-compatible', modelId: 'qwen2.5:7b' });
  });

  it.each(['gpt-4o', 'openai:', 'anthropic:claude', ':gpt', 'OpenAI:gpt-4o'])('rejects %j', (text) => {
    expect(() => parseModelSpec(text)).toThrow(UsageError);
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

  it('requires --base-url for openai-compatible', async () => {
    await expect(resolveModel({ spec: parseModelSpec('openai-compatible:llama3'), env: {} })).rejects.toThrow(/needs --base-url/);
  });
});
