import { afterEach, describe, expect, it, vi } from 'vitest';
import { modelFactoryFor } from '../../examples/chat-server/model-choice.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** What Node throws for `import('@ai-sdk/openai')` in an app that has not installed it. */
function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/loopchart/examples/chat-server/model-choice.ts`), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('the chat server --model option', () => {
  it('defaults to the offline demo model, without importing a provider package', async () => {
    const loadOpenAI = vi.fn(() => Promise.reject(notInstalled('@ai-sdk/openai')));
    expect((await modelFactoryFor(undefined, loadOpenAI))('session')).toMatchObject({ provider: 'loopchart-demo', modelId: 'demo' });
    expect((await modelFactoryFor('demo', loadOpenAI))('session')).toMatchObject({ provider: 'loopchart-demo' });
    expect(loadOpenAI).not.toHaveBeenCalled();
  });

  it('openai:<id> makes an OpenAI chat model when OPENAI_API_KEY is set, without calling it', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    expect((await modelFactoryFor('openai:gpt-4o-mini'))('session')).toMatchObject({ modelId: 'gpt-4o-mini', provider: expect.stringMatching(/^openai/) });
  });

  it('openai:<id> names the package to install when @ai-sdk/openai is missing, and passes on any other failure', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    await expect(modelFactoryFor('openai:gpt-4o-mini', () => Promise.reject(notInstalled('@ai-sdk/openai')))).rejects.toThrow(
      '--model openai:gpt-4o-mini needs the package @ai-sdk/openai, which is not installed: npm install @ai-sdk/openai',
    );
    const nested = notInstalled('@ai-sdk/provider-utils');
    await expect(modelFactoryFor('openai:gpt-4o-mini', () => Promise.reject(nested))).rejects.toBe(nested);
  });

  it('says what is wrong with an unusable choice', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    await expect(modelFactoryFor('openai:gpt-4o-mini')).rejects.toThrow('--model openai:gpt-4o-mini needs OPENAI_API_KEY in the environment.');
    await expect(modelFactoryFor('anthropic:claude')).rejects.toThrow('--model takes "demo" or "openai:<model id>", got "anthropic:claude".');
    await expect(modelFactoryFor('openai:')).rejects.toThrow(/--model takes/);
  });
});
