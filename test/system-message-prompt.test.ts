import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';

const system: ModelMessage = { role: 'system', content: 'be terse' };

describe('a system message in a prompt', () => {
  it('is refused by run() before it enters the history, naming the instructions to use instead; the agent goes on', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['hello'] }]) });
    await expect(agent.run([system, { role: 'user', content: 'hi' }])).rejects.toThrow(/message 0.*system message.*instructions/);
    expect(agent.messages).toEqual([]);
    expect((await agent.run('hi')).outcome).toBe('completed');
  });

  it("is refused in createAgent's messages (the history it starts with)", () => {
    expect(() => createAgent({ model: mockModel([]), messages: [system, { role: 'user', content: 'hi' }] })).toThrow(/messages\.0.*system message.*instructions/s);
  });

  it('is refused by steer() and followUp()', () => {
    const agent = createAgent({ model: mockModel([]) });
    expect(() => agent.steer(system)).toThrow(/system message/);
    expect(() => agent.followUp(system)).toThrow(/system message/);
  });

  it("in an AI SDK call's messages is refused before any run, not dropped or kept in the history", async () => {
    const agent = createAgent({ model: mockModel([{ text: ['hello'] }]) });
    const sdkAgent = toAISDKAgent(agent);
    await expect(sdkAgent.generate({ messages: [system, { role: 'user', content: 'hi' }] })).rejects.toThrow(/system message/);
    expect(agent.messages).toEqual([]);
    const first = await sdkAgent.generate({ messages: [{ role: 'user', content: 'hi' }] });
    const history = agent.messages;
    // Before the new message, it was taken as part of the history the agent has, and dropped.
    const later = [system, { role: 'user' as const, content: 'hi' }, ...first.responseMessages, { role: 'user' as const, content: 'and now?' }];
    await expect(sdkAgent.generate({ messages: later })).rejects.toThrow(/message 0 is a system message/);
    expect(agent.messages).toEqual(history);
  });
});
