import { describe, expect, it } from 'vitest';
import { callWarningNotices } from '../../src/cli/call-warning-notices.js';

describe('callWarningNotices', () => {
  it('says nothing of a call without warnings or of any other event', () => {
    const notices = callWarningNotices();
    expect(notices({ type: 'model-call-start', runId: 'r', step: 1, attempt: 1, warnings: [] })).toEqual([]);
    expect(notices({ type: 'start-step', runId: 'r', step: 1 })).toEqual([]);
  });

  it('names the model when the event does, and leaves it out when not', () => {
    const notices = callWarningNotices();
    expect(notices({ type: 'model-call-start', runId: 'r', step: 1, attempt: 1, warnings: [{ type: 'other', message: 'a' }] })).toEqual(['warning: a']);
    expect(notices({ type: 'model-call-start', runId: 'r', step: 2, attempt: 1, model: { provider: 'p', modelId: 'm' }, warnings: [{ type: 'other', message: 'b' }] })).toEqual([
      'warning from p / m: b',
    ]);
  });
});
