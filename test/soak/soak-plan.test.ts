import { describe, expect, it } from 'vitest';
import { parsePlan, planText, sessionOfTag, toolCallIdOf } from './soak-plan.js';

describe('soak plans', () => {
  it('reads back the plan it writes, and nothing from other text', () => {
    const plan = { tag: 'r_1/3s', tools: 2, ask: 1, toolMs: 450 };
    expect(parsePlan(planText(plan))).toEqual(plan);
    expect(parsePlan('hello')).toBeUndefined();
    expect(parsePlan(`${planText(plan)} and more`)).toBeUndefined();
  });

  it('names the session and the tool calls of a tag', () => {
    expect(sessionOfTag('r-1/3f')).toBe('r-1');
    expect(toolCallIdOf('s07/2', 3)).toBe('s07/2.c3');
  });
});
