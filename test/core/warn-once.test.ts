import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportToAppOrWarnOnce } from '../../src/core/warn-once.js';

afterEach(() => vi.restoreAllMocks());

describe('reporting a seam failure to the app, or warning once', () => {
  it("gives each failure to the app's handler, and swallows the handler's own throw", () => {
    const heard: unknown[][] = [];
    const report = reportToAppOrWarnOnce((error: Error, where: string) => {
      heard.push([error.message, where]);
      throw new Error('the handler broke');
    }, 'LOOPCHART_TEST_WARNING', () => 'never');
    const emitted = vi.spyOn(process, 'emitWarning');
    expect(() => report(new Error('a'), 'chat-1')).not.toThrow();
    report(new Error('b'), 'chat-2');
    expect(heard).toEqual([['a', 'chat-1'], ['b', 'chat-2']]);
    expect(emitted).not.toHaveBeenCalled();
  });

  it('without a handler, is one process warning with the code, in the words given, for the first failure only', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const report = reportToAppOrWarnOnce(undefined, 'LOOPCHART_TEST_WARNING', (error: Error) => `lost: ${error.message}`);
    report(new Error('a'));
    report(new Error('b'));
    expect(emitted.mock.calls).toEqual([['lost: a', { type: 'LoopchartWarning', code: 'LOOPCHART_TEST_WARNING' }]]);
  });
});
