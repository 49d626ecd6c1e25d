import type { ModelMessage } from 'ai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { messagesOf, withLazyMessages } from '../../src/core/lazy-messages.js';
import { MessageHistory, messageArray } from '../../src/core/message-history.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const user = (content: string): ModelMessage => ({ role: 'user', content });
const texts = (history: Iterable<ModelMessage>) => [...history].map((message) => message.content);

describe('MessageHistory', () => {
  it('appends without changing the history appended to: each holder keeps seeing what it was given', () => {
    const first = MessageHistory.from([user('a')]);
    const second = first.append(user('b'));
    const third = second.append(user('c'), user('d'));
    expect([texts(first), texts(second), texts(third)]).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c', 'd']]);
    expect([first.length, second.length, third.length]).toEqual([1, 2, 4]);
    expect(second.at(-1)).toEqual(user('b'));
    expect(second.at(2)).toBeUndefined();
    expect(second.at(-3)).toBeUndefined();
  });

  it('keeps a branch apart: two histories appended to the same one do not see each other', () => {
    const root = MessageHistory.from([user('a')]);
    const left = root.append(user('left'));
    const right = root.append(user('right'));
    const leftMore = left.append(user('more'));
    const rightMore = right.append(user('again'));
    expect([texts(root), texts(left), texts(right), texts(leftMore), texts(rightMore)]).toEqual([
      ['a'],
      ['a', 'left'],
      ['a', 'right'],
      ['a', 'left', 'more'],
      ['a', 'right', 'again'],
    ]);
    expect([leftMore.startsWith(left), leftMore.startsWith(root), rightMore.startsWith(right), right.startsWith(left), leftMore.startsWith(right)]).toEqual([true, true, true, false, false]);
  });

  it('copies the array it is made from, so later changes to that array do not reach it', () => {
    const messages = [user('a')];
    const history = MessageHistory.from(messages);
    messages.push(user('b'));
    expect(texts(history)).toEqual(['a']);
    expect(MessageHistory.from(history)).toBe(history);
  });

  it('slices as an array does, and gives arrays of its own that a later append does not change', () => {
    const history = MessageHistory.from([user('a'), user('b'), user('c')]);
    expect([history.slice(1), history.slice(-2, -1), history.slice(5), history.slice(0, 99)].map(texts)).toEqual([['b', 'c'], ['b'], [], ['a', 'b', 'c']]);
    const array = history.toArray();
    expect(history.toArray()).toBe(array);
    history.append(user('d'));
    expect(texts(array)).toEqual(['a', 'b', 'c']);
    expect(JSON.parse(JSON.stringify({ messages: history }))).toEqual({ messages: [user('a'), user('b'), user('c')] });
  });

  it('compares with an array it made in O(1), and with any other array message by message', () => {
    const shared = user('a');
    const history = MessageHistory.from([shared]).append(user('b'));
    expect(history.startsWith(history.toArray())).toBe(true);
    expect(history.startsWith([shared])).toBe(true);
    expect(history.startsWith([user('a')])).toBe(false);
    expect(history.startsWith([shared, user('b'), user('c')])).toBe(false);
    expect(MessageHistory.of(history.toArray())).toBe(history);
    expect(MessageHistory.of([shared])).toBeUndefined();
  });

  it('keeps nothing of what was appended to the empty history, which every agent starts from', async () => {
    const appended = (() => {
      const message = user('x');
      expect(texts(MessageHistory.empty.append(message))).toEqual(['x']);
      return new WeakRef(message);
    })();
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(appended.deref()).toBeUndefined();
    expect(MessageHistory.empty.length).toBe(0);
  });

  it('finds the last message a predicate holds for', () => {
    const history = MessageHistory.from([user('a'), { role: 'assistant', content: 'x' }, user('b'), { role: 'assistant', content: 'y' }]);
    expect(history.findLastIndex((message) => message.role === 'user')).toBe(2);
    expect(history.findLastIndex((message) => message.role === 'tool')).toBe(-1);
  });
});

describe('withLazyMessages', () => {
  it('makes the array only when messages is read, and hands the history itself to a reader that knows it', () => {
    const history = MessageHistory.from([user('a')]).append(user('b'));
    const options = withLazyMessages({ toolCallId: 'call_1' }, history);
    expect(messagesOf(options)).toBe(history);
    expect(options.messages).toBe(history.toArray());
    expect(texts(options.messages)).toEqual(['a', 'b']);
    expect({ ...options }.messages).toBe(history.toArray());
  });

  it('lets messages be replaced, and then the replacement is what every reader gets', () => {
    const history = MessageHistory.from([user('a')]);
    const request = withLazyMessages({}, history);
    const replaced = [user('z')];
    request.messages = replaced;
    expect(request.messages).toBe(replaced);
    expect(messagesOf(request)).toBe(replaced);
    expect(messagesOf({ messages: replaced })).toBe(replaced);
    expect(messageArray(history)).toBe(history.toArray());
    expect(messageArray(replaced)).toBe(replaced);
  });

  it('hands a spread copy whose messages were replaced its own messages, not the history it was copied from', () => {
    const history = MessageHistory.from([user('a')]);
    const request = withLazyMessages({}, history);
    const replaced = [user('z')];
    const copy = { ...request, messages: replaced };
    expect(messagesOf(copy)).toBe(replaced);
    expect(messagesOf({ ...request })).toBe(history.toArray());
  });

  it('adds nothing a spread copy or a deep-equality check sees but messages', () => {
    const history = MessageHistory.from([user('a')]);
    const args = withLazyMessages({ toolCallId: 'x' }, history);
    expect({ ...args, signal: 1 }).toEqual({ toolCallId: 'x', messages: [user('a')], signal: 1 });
    expect(Object.getOwnPropertySymbols({ ...args })).toEqual([]);
  });

  it('gives every object the same accessor: one shape, however many objects it is given to', () => {
    const first = withLazyMessages({ toolCallId: 'a' }, MessageHistory.from([user('a')]));
    const second = withLazyMessages({ toolCallId: 'b' }, MessageHistory.from([user('b')]));
    expect(Object.getOwnPropertyDescriptor(first, 'messages')?.get).toBe(Object.getOwnPropertyDescriptor(second, 'messages')?.get);
    expect([texts(first.messages), texts(second.messages)]).toEqual([['a'], ['b']]);
  });
});
