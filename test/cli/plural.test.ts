import { describe, expect, it } from 'vitest';
import { plural } from '../../src/cli/plural.js';

describe('plural', () => {
  it.each([
    [0, 'step', '0 steps'],
    [1, 'step', '1 step'],
    [2, 'tool call', '2 tool calls'],
    [1, 'token', '1 token'],
  ])('%i %s -> %s', (count, noun, expected) => {
    expect(plural(count, noun)).toBe(expected);
  });
});
