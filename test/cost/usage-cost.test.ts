import { findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { addCosts } from '../../src/core/cost.js';
import { formatCost } from '../../src/cost/format-cost.js';
import { catalogueModel, pricedProviders } from '../../src/cost/catalogue-model.js';
import { usageCost } from '../../src/cost/usage-cost.js';
import { isUsageUnreported, usageFrom } from '../../src/core/usage.js';

const gpt4oMini = { provider: 'openai.chat', modelId: 'gpt-4o-mini' };
// gpt-4o-mini's list prices: $0.15 per million input tokens, $0.075 cached, $0.60 output.
const perToken = { input: 0.15e-6, cached: 0.075e-6, output: 0.6e-6 };

describe('usageCost (the price of one LLM call)', () => {
  it('prices input and output tokens at the model’s list prices', () => {
    const cost = usageCost(gpt4oMini, usageFrom({ inputTokens: 1000, outputTokens: 100 }));
    expect(cost?.currency).toBe('USD');
    expect(cost?.input).toBeCloseTo(1000 * perToken.input, 12);
    expect(cost?.output).toBeCloseTo(100 * perToken.output, 12);
    expect(cost?.total).toBeCloseTo(1000 * perToken.input + 100 * perToken.output, 12);
  });

  it('prices cache reads at their own rate, as part of the input', () => {
    const usage = usageFrom({
      inputTokens: 1000,
      outputTokens: 100,
      inputTokenDetails: { noCacheTokens: 600, cacheReadTokens: 400, cacheWriteTokens: undefined },
    });
    const cost = usageCost(gpt4oMini, usage);
    expect(cost?.input).toBeCloseTo(600 * perToken.input + 400 * perToken.cached, 12);
    expect(cost?.total).toBeCloseTo(600 * perToken.input + 400 * perToken.cached + 100 * perToken.output, 12);
  });

  it('prices Anthropic’s cache writes above plain input, and reads below it', () => {
    const model = { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' };
    const plain = usageCost(model, usageFrom({ inputTokens: 1000, outputTokens: 0 }))!;
    const written = usageCost(model, usageFrom({ inputTokens: 1000, inputTokenDetails: { noCacheTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 1000 } }))!;
    const read = usageCost(model, usageFrom({ inputTokens: 1000, inputTokenDetails: { noCacheTokens: 0, cacheReadTokens: 1000, cacheWriteTokens: 0 } }))!;
    expect(written.input).toBeGreaterThan(plain.input);
    expect(read.input).toBeLessThan(plain.input);
  });

  it('prices a long call at its long-context tier, so calls are priced one by one', () => {
    const model = { provider: 'google.generative-ai', modelId: 'gemini-2.5-pro' };
    const short = usageCost(model, usageFrom({ inputTokens: 100_000 }))!;
    const long = usageCost(model, usageFrom({ inputTokens: 300_000 }))!;
    expect(long.input / 300_000).toBeGreaterThan(short.input / 100_000);
  });

  it('prices a dated model id as its model, and models of Google, DeepSeek and the AI Gateway', () => {
    const usage = usageFrom({ inputTokens: 1000, outputTokens: 100 });
    expect(usageCost({ provider: 'openai.responses', modelId: 'gpt-4o-mini-2024-07-18' }, usage)?.total).toBeCloseTo(usageCost(gpt4oMini, usage)!.total, 12);
    expect(usageCost({ provider: 'google.generative-ai', modelId: 'gemini-2.5-flash' }, usage)?.total).toBeGreaterThan(0);
    expect(usageCost({ provider: 'deepseek.chat', modelId: 'deepseek-chat' }, usage)?.total).toBeGreaterThan(0);
    expect(usageCost({ provider: 'gateway', modelId: 'openai/gpt-4o-mini' }, usage)?.total).toBeCloseTo(usageCost(gpt4oMini, usage)!.total, 12);
  });

  it('is undefined for a model the catalogue does not know', () => {
    expect(usageCost({ provider: 'openai.chat', modelId: 'no-such-model' }, usageFrom({ inputTokens: 10, outputTokens: 1 }))).toBeUndefined();
  });

  it('is undefined for providers it does not price, even when the model has a priced model’s name', () => {
    const usage = usageFrom({ inputTokens: 10, outputTokens: 1 });
    expect(usageCost({ provider: 'openai-compatible.chat', modelId: 'gpt-4o-mini' }, usage)).toBeUndefined();
    expect(usageCost({ provider: 'scripted', modelId: 'gpt-4o-mini' }, usage)).toBeUndefined();
    expect(usageCost({ provider: 'gateway', modelId: 'gpt-4o-mini' }, usage)).toBeUndefined();
  });

  it('is undefined, not an error, for usage the catalogue cannot split', () => {
    const usage = usageFrom({ inputTokens: 10, outputTokens: 1, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 50, cacheWriteTokens: undefined } });
    expect(usageCost(gpt4oMini, usage)).toBeUndefined();
  });

  it('adds costs part by part', () => {
    expect(addCosts({ total: 3, input: 1, output: 2, currency: 'USD' }, { total: 0.5, input: 0.25, output: 0.25, currency: 'USD' })).toEqual({
      total: 3.5,
      input: 1.25,
      output: 2.25,
      currency: 'USD',
    });
  });
});

describe('catalogueModel (the AI SDK’s provider names in the catalogue’s terms)', () => {
  it('reads the provider name before the first dot of model.provider', () => {
    expect(catalogueModel({ provider: 'anthropic.messages', modelId: 'claude-haiku-4-5' })).toEqual({ providerId: 'anthropic', modelId: 'claude-haiku-4-5' });
    expect(catalogueModel({ provider: 'google.vertex.chat', modelId: 'gemini-2.5-pro' })).toEqual({ providerId: 'google', modelId: 'gemini-2.5-pro' });
    expect(catalogueModel({ provider: 'xai.chat', modelId: 'grok-4' })).toEqual({ providerId: 'x-ai', modelId: 'grok-4' });
    expect(catalogueModel({ provider: 'gateway', modelId: 'anthropic/claude-sonnet-4.5' })).toEqual({ providerId: 'anthropic', modelId: 'claude-sonnet-4.5' });
  });

  it('names only providers the catalogue has', () => {
    for (const name of pricedProviders) {
      const listed = catalogueModel({ provider: `${name}.chat`, modelId: 'any' })!;
      expect(findProvider({ providerId: listed.providerId })?.id, name).toBe(listed.providerId);
    }
  });
});

describe('formatCost (a cost for people)', () => {
  const cost = (total: number) => ({ total, input: total, output: 0, currency: 'USD' as const });

  it('shows dollars with four decimals', () => {
    expect(formatCost(cost(0.012345))).toBe('$0.0123');
    expect(formatCost(cost(12.5))).toBe('$12.5000');
    expect(formatCost(cost(0))).toBe('$0.0000');
  });

  it('keeps two significant digits of a cost below a tenth of a cent, as a decimal', () => {
    expect(formatCost(cost(0.00021))).toBe('$0.00021');
    expect(formatCost(cost(0.0000183))).toBe('$0.000018');
    expect(formatCost(cost(1.5e-7))).toBe('$0.00000015');
  });
});

describe('isUsageUnreported', () => {
  it('is true only when the provider gave none of the three counts', () => {
    expect(isUsageUnreported(undefined)).toBe(true);
    expect(isUsageUnreported({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined })).toBe(true);
    expect(isUsageUnreported({ inputTokens: 0, outputTokens: undefined, totalTokens: undefined })).toBe(false);
    expect(isUsageUnreported({ totalTokens: 12 })).toBe(false);
  });
});
