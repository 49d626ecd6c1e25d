import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, usageFrom, usageProblem } from '../src/core/usage.js';

describe('usage (the AI SDK LanguageModelUsage)', () => {
  it('keeps the provider’s details and counts unreported totals as 0', () => {
    const usage = usageFrom({ inputTokens: 12, inputTokenDetails: { noCacheTokens: 2, cacheReadTokens: 10, cacheWriteTokens: undefined } });
    expect(usage).toEqual({
      inputTokens: 12,
      outputTokens: 0,
      totalTokens: 12,
      inputTokenDetails: { noCacheTokens: 2, cacheReadTokens: 10, cacheWriteTokens: undefined },
      outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
    });
  });

  it('sums details that either side reported and leaves the others unreported, as the AI SDK does', () => {
    const first = usageFrom({ inputTokens: 10, outputTokens: 5, outputTokenDetails: { textTokens: 3, reasoningTokens: 2 } });
    const second = usageFrom({ inputTokens: 20, outputTokens: 1, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 15, cacheWriteTokens: undefined } });
    expect(addUsage(addUsage(emptyUsage, first), second)).toEqual({
      inputTokens: 30,
      outputTokens: 6,
      totalTokens: 36,
      inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 15, cacheWriteTokens: undefined },
      outputTokenDetails: { textTokens: 3, reasoningTokens: 2 },
    });
  });

  it('reads a checkpoint’s usage written before usage had details', () => {
    const old = { inputTokens: 4, outputTokens: 1, totalTokens: 5 } as Parameters<typeof addUsage>[0];
    expect(addUsage(old, usageFrom({ inputTokens: 1, outputTokens: 1 }))).toMatchObject({ inputTokens: 5, outputTokens: 2, totalTokens: 7 });
  });

  it('does not carry the provider’s raw figures of one call into a sum', () => {
    const withRaw = { ...usageFrom({ inputTokens: 1 }), raw: { prompt_tokens: 1 } };
    expect(addUsage(emptyUsage, withRaw)).not.toHaveProperty('raw');
  });
});

describe('usageProblem', () => {
  it('names what does not add up: a count below 0 or not whole, cache above input, reasoning above output', () => {
    expect(usageProblem(usageFrom({ inputTokens: 10, outputTokens: 2 }))).toBeUndefined();
    expect(usageProblem(usageFrom({ inputTokens: -5, outputTokens: 2 }))).toBe('input tokens: -5, not a whole number of 0 or more');
    expect(usageProblem(usageFrom({ inputTokens: 10, outputTokens: 2.5 }))).toBe('output tokens: 2.5, not a whole number of 0 or more');
    expect(usageProblem(usageFrom({ inputTokens: 1000, outputTokens: 5, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 800, cacheWriteTokens: 300 } }))).toBe(
      'cache reads and writes (1100) above the input tokens (1000)',
    );
    expect(usageProblem(usageFrom({ inputTokens: 10, outputTokens: 5, outputTokenDetails: { textTokens: undefined, reasoningTokens: 9 } }))).toBe('reasoning tokens (9) above the output tokens (5)');
  });
});
