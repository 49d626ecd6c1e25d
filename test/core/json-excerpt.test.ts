import { describe, expect, it } from 'vitest';
import { jsonExcerpt } from '../../src/core/json-excerpt.js';

describe('jsonExcerpt', () => {
  it('is the JSON of a value, cut to maxChars (80 by default)', () => {
    expect(jsonExcerpt({ run: 42 })).toBe('{"run":42}');
    expect(jsonExcerpt('x'.repeat(500))).toBe(`"${'x'.repeat(79)}`);
    expect(jsonExcerpt('x'.repeat(500), 10)).toBe(`"${'x'.repeat(9)}`);
  });

  it('is the value as text where JSON has none', () => {
    expect(jsonExcerpt(undefined)).toBe('undefined');
  });
});
