import { describe, expect, it } from 'vitest';
import { stepToolCall } from '../src/model-call/step-tool-call.js';

describe('stepToolCall (the tool-call shape both steps produce)', () => {
  it('keeps a valid call as parsed, without empty fields', () => {
    expect(stepToolCall({ toolCallId: 'c1', toolName: 'read', input: { path: 'a' } })).toEqual({ toolCallId: 'c1', toolName: 'read', input: { path: 'a' } });
  });

  it('gives an invalid call the reason as text, so it can be stored and shown to the model', () => {
    expect(stepToolCall({ toolCallId: 'c2', toolName: 'nope', input: '{', invalid: true, error: new Error('Model tried to call unavailable tool "nope"') })).toEqual({
      toolCallId: 'c2',
      toolName: 'nope',
      input: '{',
      invalid: true,
      error: 'Model tried to call unavailable tool "nope"',
      errorName: 'Error',
    });
  });

  it('keeps the provider’s metadata when there is some', () => {
    const providerMetadata = { openai: { itemId: 'x' } };
    expect(stepToolCall({ toolCallId: 'c3', toolName: 'read', input: {}, providerMetadata })).toMatchObject({ providerMetadata });
  });
});
