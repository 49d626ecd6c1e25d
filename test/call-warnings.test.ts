import { describe, expect, it } from 'vitest';
import { distinctWarnings, warningText } from '../src/trace/call-warnings.js';

describe('call warnings', () => {
  it('reads each kind of warning as one line, in the AI SDK’s words', () => {
    expect(warningText({ type: 'unsupported', feature: 'responseFormat', details: 'JSON response format schema is only supported with structuredOutputs' })).toBe(
      'The feature "responseFormat" is not supported. JSON response format schema is only supported with structuredOutputs',
    );
    expect(warningText({ type: 'unsupported', feature: 'topK' })).toBe('The feature "topK" is not supported.');
    expect(warningText({ type: 'compatibility', feature: 'tools', details: 'as text' })).toBe('The feature "tools" is used in a compatibility mode. as text');
    expect(warningText({ type: 'deprecated', setting: 'system', message: 'Use instructions.' })).toBe('Deprecated: "system". Use instructions.');
    expect(warningText({ type: 'other', message: 'careful' })).toBe('careful');
  });

  it('shows a warning of a kind it does not know whole', () => {
    expect(warningText({ type: 'novel', what: 1 } as never)).toBe('{"type":"novel","what":1}');
  });

  it('keeps each distinct warning once, where it first appears, whatever the order of its fields', () => {
    const a = { type: 'unsupported', feature: 'topK', details: 'no' } as const;
    const b = { type: 'other', message: 'b' } as const;
    expect(distinctWarnings([a, b, { details: 'no', feature: 'topK', type: 'unsupported' }, b])).toEqual([a, b]);
  });
});
