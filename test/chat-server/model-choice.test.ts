import { afterEach, describe, expect, it, vi } from 'vitest';
import { modelFactoryFor } from '../../examples/chat-server/model-choice.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the chat server --model option', () => {
  it('defaults to the offline demo model', () => {
    expect(modelFactoryFor()('session')).toMatchObject({ provider: 'loopchart-demo', modelId: 'demo' });
  });

  it('openai:<id> makes an OpenAI chat model when OPENAI_API_KEY is set, without calling it', () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    expect(modelFactoryFor('openai:gpt-4o-mini')('session')).toMatchObject({ modelId: 'gpt-4o-mini', provider: expect.stringMatching(/^openai/) });
  });

  it('says what is wrong with an unusable choice', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    expect(() => modelFactoryFor('openai:gpt-4o-mini')).toThrow('--model openai:gpt-4o-mini needs OPENAI_API_KEY in the environment.');
    expect(() => modelFactoryFor('anthropic:claude')).toThrow('--model takes "demo" or "openai:<model id>", got "anthropic:claude".');
    expect(() => modelFactoryFor('openai:')).toThrow(/--model takes/);
  });
});
