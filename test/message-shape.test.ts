import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { messageShapeProblem } from '../src/core/message-shape.js';
import { mockModel } from './support/mock-model.js';

describe('messageShapeProblem', () => {
  it.each([
    [{ role: 'user', content: 'hi' }],
    [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }],
    [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'x' } }] }],
  ])('accepts a well-shaped message %j', (message) => {
    expect(messageShapeProblem(message)).toBeUndefined();
  });

  it.each([
    [undefined, /message object/],
    ['hi', /message object/],
    [{ role: 'robot', content: 'x' }, /role must be one of/],
    [{ role: 'user' }, /content must be a string or an array/],
    [{ role: 'user', content: ['hi'] }, /every part/],
  ])('names what is wrong with %j', (value, problem) => {
    expect(messageShapeProblem(value)).toMatch(problem);
  });
});

describe('creating an agent with a long history', () => {
  it('checks each message by shape only and does not walk its parts', () => {
    let partReads = 0;
    const part = new Proxy({ type: 'text', text: 'x'.repeat(100) }, {
      get(target, key, receiver) {
        if (key === 'text') partReads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const messages = Array.from({ length: 1_000 }, (_, index): ModelMessage => (index % 2 ? { role: 'assistant', content: [part as { type: 'text'; text: string }] } : { role: 'user', content: 'q' }));

    const agent = createAgent({ model: mockModel([]), messages });

    expect(agent.messages).toHaveLength(1_000);
    expect(partReads).toBe(0);
  });
});
