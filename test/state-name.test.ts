import { describe, expect, it } from 'vitest';
import { matchesState, type StateValue } from 'xstate';
import { isAwaitingApproval, stateName } from '../src/machine/state-name.js';

describe('state values read without XState', () => {
  it('names the active leaf of a state value as a dotted path', () => {
    expect(stateName('idle')).toBe('idle');
    expect(stateName({ running: { llm: 'calling' } })).toBe('running.llm.calling');
  });

  it('says running.awaitingApproval exactly where snapshot.matches says it', () => {
    const values: unknown[] = [
      'idle',
      { running: 'awaitingApproval' },
      { running: { awaitingApproval: 'waiting' } },
      { running: 'toolExec' },
      { running: { llm: 'calling' } },
      { awaitingApproval: 'x' },
    ];
    expect(isAwaitingApproval(null)).toBe(false);
    for (const value of values) {
      const expected = matchesState({ running: 'awaitingApproval' }, value as StateValue);
      expect(isAwaitingApproval(value), JSON.stringify(value)).toBe(expected);
    }
  });
});
