import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../src/core/options-check.js';

const schema = z.strictObject({ cwd: z.string(), maxMatches: z.number().int().positive().optional(), nested: z.strictObject({ on: z.boolean() }).optional() });

describe('parseOptions', () => {
  it('gives the options back when they fit', () => {
    expect(parseOptions('grepTool', schema, { cwd: '.', maxMatches: 5 })).toEqual({ cwd: '.', maxMatches: 5 });
  });

  it('refuses an unknown option, naming the one meant when it is close, and what is taken', () => {
    expect(() => parseOptions('grepTool', schema, { cwd: '.', maxMatch: 5 })).toThrow(
      new TypeError('Invalid grepTool options: unknown option "maxMatch" (did you mean "maxMatches"?); it takes cwd, maxMatches, nested'),
    );
    expect(() => parseOptions('grepTool', schema, { cwd: '.', frobnicate: true })).toThrow(new TypeError('Invalid grepTool options: unknown option "frobnicate"; it takes cwd, maxMatches, nested'));
  });

  it('names the field of a value that does not fit, and an unknown option inside a nested object by its path', () => {
    expect(() => parseOptions('grepTool', schema, { cwd: '.', maxMatches: -1 })).toThrow(/^Invalid grepTool options: maxMatches: Too small/);
    expect(() => parseOptions('grepTool', schema, { cwd: '.', nested: { on: true, of: 1 } })).toThrow(new TypeError('Invalid grepTool options: unknown option "of" in nested'));
  });

  it('refuses options that are not an object', () => {
    expect(() => parseOptions('grepTool', schema, undefined)).toThrow(/^Invalid grepTool options: Invalid input: expected object, received undefined$/);
  });
});
