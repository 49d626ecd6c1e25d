/**
 * A session request is checked where it enters. A sender refuses an input field no worker knows
 * (it would be left out, in silence); a worker leaves such a field out, so that the input of a
 * newer sender still moves an older worker's session.
 */
import { describe, expect, it } from 'vitest';
import { assertSessionRequest, SessionRequestError, type SessionRequest } from '../../src/scale/session-request.js';

const request = (input: unknown): SessionRequest => ({ sessionId: 'chat-1', requestId: 'r-1', input: input as SessionRequest['input'] });

describe('assertSessionRequest', () => {
  it('refuses, when sending, an input field no worker reads, naming the one meant and the fields the input takes', () => {
    const refusal = (() => {
      try {
        assertSessionRequest(request({ type: 'deny', toolCallId: 'call-1', reasn: 'not on main' }), { sending: true });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(SessionRequestError);
    expect((refusal as SessionRequestError).issues).toEqual([
      { path: 'input', message: 'unknown field "reasn" of a deny input (did you mean "reason"?): no worker reads it; it takes type, toolCallId, reason' },
    ]);
    expect(() => assertSessionRequest(request({ type: 'abort', because: 'x' }), { sending: true })).toThrow('unknown field "because" of an abort input: no worker reads it; it takes type, reason');
  });

  it('takes, as a worker, an input with a field it does not know: a newer sender may have written it', () => {
    expect(() => assertSessionRequest(request({ type: 'deny', toolCallId: 'call-1', note: 'newer field' }))).not.toThrow();
  });

  it('takes every input a sender may send, as it is', () => {
    for (const input of [
      { type: 'prompt', prompt: 'hi' },
      { type: 'prompt', prompt: [{ role: 'user', content: 'hi' }] },
      { type: 'approve', toolCallId: 'call-1' },
      { type: 'deny', toolCallId: 'call-1', reason: 'no' },
      { type: 'steer', message: 'left' },
      { type: 'follow-up', message: { role: 'user', content: 'and then' } },
      { type: 'abort' },
      { type: 'resume' },
    ]) {
      expect(() => assertSessionRequest(request(input), { sending: true }), input.type).not.toThrow();
    }
  });
});
