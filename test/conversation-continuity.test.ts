import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { continuation } from '../src/ai-sdk/conversation-continuity.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: text });
const image: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: 'https://example.com/a.png' }] };
const mismatch = (previous: ModelMessage[] | undefined, messages: ModelMessage[]) => {
  const checked = continuation(previous, messages);
  return 'mismatch' in checked ? checked.mismatch : undefined;
};

describe('continuation', () => {
  const previous = [user('hi'), assistant('hello'), user('and now?')];

  it('a first call, or a call of user messages only, continues: all its messages are new', () => {
    expect(continuation(undefined, previous)).toEqual({ start: 2 });
    expect(continuation(previous, [user('only the newest')])).toEqual({ start: 0 });
    expect(continuation(previous, [user('hi'), user('hi again')])).toEqual({ start: 0 });
  });

  it('a call with the replies and new user messages continues: the new ones start after the replies', () => {
    expect(continuation(previous, [...previous, assistant('now'), user('thanks'), user('bye')])).toEqual({ start: 4 });
  });

  it('after a run that failed before replying, more user messages continue: the new ones start after the previous call’s', () => {
    expect(continuation(previous, [...previous, user('hello?')])).toEqual({ start: 3 });
  });

  it('a string content and a single text part are the same user message; assistant messages are not compared', () => {
    const written = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }, assistant('HELLO, differently'), user('and now?'), assistant('x'), user('y')];
    expect(mismatch(previous, written)).toBeUndefined();
  });

  it('compares the count of non-text parts, not their data', () => {
    const sameShape: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: 'data:image/png;base64,AAAA' }] };
    expect(mismatch([image], [sameShape, assistant('a'), user('b')])).toBeUndefined();
    expect(mismatch([image], [user('look'), assistant('a'), user('b')])).toMatch(/message 0/);
  });

  it('refuses a regenerate, a shorter conversation, an edit, and a reply where the previous call had a user message', () => {
    expect(mismatch(previous, previous)).toMatch(/no user message the previous call did not have/);
    const longer = [...previous, assistant('now'), user('thanks')];
    expect(mismatch(longer, previous)).toMatch(/no user message the previous call did not have \(2 user messages, the previous call 3\)/);
    expect(mismatch(previous, [user('hi'), assistant('hello'), user('edited'), assistant('x'), user('y')])).toMatch(/message 2 is not the user message/);
    expect(mismatch(previous, [user('hi'), assistant('hello'), assistant('and now?'), assistant('x'), user('y')])).toMatch(/message 4 is not the user message/);
    expect(mismatch([...previous, assistant('now')], [...previous, user('y')])).toMatch(/the replies to its user messages 2 to 2 are missing/);
  });

  it('continues a conversation whose replies the client pruned (pruneMessages): only the user messages are compared, in order', () => {
    const tool: ModelMessage = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'x' } }] };
    const before = [user('hi'), assistant('calling'), tool, assistant('hello'), user('and now?')];
    expect(continuation(before, [user('hi'), assistant('hello'), user('and now?'), assistant('now'), user('thanks')])).toEqual({ start: 4 });
  });
});
