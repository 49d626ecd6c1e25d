import { describe, expect, it } from 'vitest';
import { cutAttribute, errorText, finishReasonValue, jsonAttribute, MAX_ATTRIBUTE_CHARS, providerName, usageAttributes } from '../../src/telemetry/gen-ai-attributes.js';
import { usageFrom } from '../../src/core/usage.js';

describe('GenAI semantic-convention attributes', () => {
  it('maps AI SDK provider ids to the well-known gen_ai.provider.name values, others to their first segment', () => {
    expect(providerName('openai.chat')).toBe('openai');
    expect(providerName('openai.responses')).toBe('openai');
    expect(providerName('anthropic.messages')).toBe('anthropic');
    expect(providerName('google.generative-ai')).toBe('gcp.gemini');
    expect(providerName('google.vertex.chat')).toBe('gcp.vertex_ai');
    expect(providerName('amazon-bedrock')).toBe('aws.bedrock');
    expect(providerName('mistral.chat')).toBe('mistral_ai');
    expect(providerName('xai.chat')).toBe('x_ai');
    expect(providerName('scripted')).toBe('scripted');
    expect(providerName('my-gateway.chat')).toBe('my-gateway');
  });

  it('spells finish reasons the way the conventions do', () => {
    expect(finishReasonValue('tool-calls')).toBe('tool_call');
    expect(finishReasonValue('content-filter')).toBe('content_filter');
    expect(finishReasonValue('stop')).toBe('stop');
    expect(finishReasonValue('length')).toBe('length');
    expect(finishReasonValue('error')).toBe('error');
  });

  it('records token counts, and cache and reasoning details only when the provider reported them', () => {
    expect(usageAttributes(usageFrom({ inputTokens: 10, outputTokens: 2 }))).toEqual({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 2 });
    expect(
      usageAttributes(
        usageFrom({
          inputTokens: 10,
          outputTokens: 2,
          inputTokenDetails: { noCacheTokens: 4, cacheReadTokens: 6, cacheWriteTokens: 0 },
          outputTokenDetails: { textTokens: 1, reasoningTokens: 1 },
        }),
      ),
    ).toEqual({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 2,
      'gen_ai.usage.cache_read.input_tokens': 6,
      'gen_ai.usage.cache_creation.input_tokens': 0,
      'gen_ai.usage.reasoning.output_tokens': 1,
    });
  });

  it('records tool inputs and outputs as JSON text, and survives values JSON cannot hold', () => {
    expect(jsonAttribute({ a: 1 })).toBe('{"a":1}');
    expect(jsonAttribute('text')).toBe('"text"');
    expect(jsonAttribute(undefined)).toBe('undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonAttribute(cyclic)).toBe('[object Object]');
    expect(errorText('disk on fire')).toBe('disk on fire');
    expect(errorText({ code: 'E' })).toBe('{"code":"E"}');
  });

  it('cutAttribute keeps short text as it is and never cuts a surrogate pair in half', () => {
    expect(cutAttribute('short')).toBe('short');
    const emoji = `${'x'.repeat(MAX_ATTRIBUTE_CHARS - 1)}${'😀'.repeat(10)}`;
    expect(cutAttribute(emoji)).toBe(`${'x'.repeat(MAX_ATTRIBUTE_CHARS - 1)}…[cut: ${emoji.length} characters in all]`);
  });
});
