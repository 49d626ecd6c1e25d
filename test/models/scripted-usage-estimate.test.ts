import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from 'loopchart/test';
import { estimateMessageTokens } from '../../src/context/token-estimate.js';

async function inputTokensFor(prompt: LanguageModelV4Prompt): Promise<number> {
  const model = scriptedModel([{ text: 'ok' }]);
  const { stream } = await model.doStream({ prompt });
  let total = 0;
  for await (const part of stream as AsyncIterable<LanguageModelV4StreamPart>) if (part.type === 'finish') total = part.usage.inputTokens.total ?? 0;
  return total;
}

describe("the scripted model's usage estimate", () => {
  it('counts a prompt by the same rule as the context: a tool call by its name and JSON input, a result by its name and output', async () => {
    const call = { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'lookup_the_weather', input: { city: 'Oslo' } };
    const result = { type: 'tool-result' as const, toolCallId: 'c1', toolName: 'lookup_the_weather', output: { type: 'json' as const, value: { celsius: 4 } } };
    const prompt: LanguageModelV4Prompt = [
      { role: 'assistant', content: [call] },
      { role: 'tool', content: [result] },
    ];
    // The context's estimate of each message, less its fixed 4 tokens of message overhead.
    const contextEstimate = estimateMessageTokens({ role: 'assistant', content: [call] }) - 4 + (estimateMessageTokens({ role: 'tool', content: [result] }) - 4);
    const characters = 'lookup_the_weather'.length * 2 + JSON.stringify({ city: 'Oslo' }).length + JSON.stringify({ celsius: 4 }).length;
    expect(await inputTokensFor(prompt)).toBe(Math.ceil(characters / 4));
    expect(Math.ceil(characters / 4)).toBeLessThanOrEqual(contextEstimate);
  });
});
