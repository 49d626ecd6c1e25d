import { describe, expect, it } from 'vitest';
import { editMessage } from '../../src/playback/edit-message.js';
import { ForkRequestError, parseForkRequest } from '../../src/playback/fork-request.js';
import { stateValue } from '../../src/playback/inspection-replay.js';

describe('the playback page pure parts', () => {
  it('reads a fork request, blank fields as not given, and names a bad field', () => {
    expect(parseForkRequest({ checkpoint: 2, prompt: 'Go on', model: ' ', requestId: 'r1' })).toEqual({ checkpoint: 2, prompt: 'Go on', requestId: 'r1' });
    expect(() => parseForkRequest({ checkpoint: 0 })).toThrow(ForkRequestError);
    expect(() => parseForkRequest({ checkpoint: 1, extra: true })).toThrow(/extra|unrecognized/i);
    expect(() => parseForkRequest({ checkpoint: 1, edit: { index: -1, text: 'x' } })).toThrow(/edit\.index/);
  });

  it('edits a user or assistant message text, keeps tool calls, refuses a tool result', () => {
    const history = [
      { role: 'user' as const, content: 'Fix a.ts' },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Reading.' }, { type: 'tool-call' as const, toolCallId: 'c', toolName: 'read', input: {} }] },
      { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'c', toolName: 'read', output: { type: 'text' as const, value: 'x' } }] },
    ];
    expect(editMessage(history, { index: 0, text: 'Fix b.ts' })[0]).toEqual({ role: 'user', content: 'Fix b.ts' });
    expect(editMessage(history, { index: 1, text: 'Looking.' })[1]!.content).toEqual([{ type: 'text', text: 'Looking.' }, history[1]!.content[1]]);
    expect(() => editMessage(history, { index: 2, text: 'y' })).toThrow(/tool result/);
    expect(() => editMessage(history, { index: 3, text: 'y' })).toThrow(/no message 3/);
  });

  it('turns a dotted state path into the state value XState reports', () => {
    expect(stateValue('idle')).toBe('idle');
    expect(stateValue('running.llm.calling')).toEqual({ running: { llm: 'calling' } });
  });
});
