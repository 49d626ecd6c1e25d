import { describe, expect, it } from 'vitest';
import { canonicalJson, doomLoopFingerprint, nextDoomStreaks, toolCallFingerprint } from '../src/resilience/doom-loop.js';

describe('doom-loop fingerprints', () => {
  it('ignore key order, nesting order and whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'z' } })).toBe(canonicalJson({ a: { c: 'z', d: [1, { x: 1, y: 2 }] }, b: 1 }));
    expect(canonicalJson('{ "b": 1,\n "a": 2 }')).toBe(canonicalJson({ a: 2, b: 1 }));
    expect(canonicalJson('  plain text ')).toBe(canonicalJson('plain text'));
  });

  it('tell apart different tools, values and array orders', () => {
    expect(toolCallFingerprint({ toolName: 'a', input: { x: 1 } })).not.toBe(toolCallFingerprint({ toolName: 'b', input: { x: 1 } }));
    expect(canonicalJson({ x: 1 })).not.toBe(canonicalJson({ x: '1' }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('count consecutive steps per call and drop calls that stop repeating', () => {
    const read = { toolName: 'read', input: { path: 'a' } };
    const write = { toolName: 'write', input: { path: 'a' } };
    let streaks = nextDoomStreaks({}, [read, write]);
    streaks = nextDoomStreaks(streaks, [read]);
    expect(streaks).toEqual({ [toolCallFingerprint(read)]: 2 });
    streaks = nextDoomStreaks(streaks, [read, read]);
    expect(streaks).toEqual({ [toolCallFingerprint(read)]: 3 });
    expect(doomLoopFingerprint(streaks, 3)).toBe(toolCallFingerprint(read));
    expect(doomLoopFingerprint(nextDoomStreaks(streaks, [write]), 3)).toBeUndefined();
  });
});
