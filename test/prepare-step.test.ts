import { tool } from 'ai';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { activeToolSet, preparedStep } from '../src/actors/prepared-step.js';

const add = tool({ description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b });
const sent = (call: LanguageModelV4CallOptions) => ({
  tools: (call.tools ?? []).map((each) => each.name),
  system: call.prompt.filter((message) => message.role === 'system').map((message) => message.content),
  toolChoice: call.toolChoice,
});

describe('prepareStep', () => {
  it('applies what it returns to that step\'s call: instructions, active tools and tool choice; the next step is the agent\'s own again', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }, { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: 'It is 5.' }]);
    const seen: Array<{ stepNumber: number; steps: number; responseMessages: number }> = [];
    const agent = createAgent({
      model,
      instructions: 'Be brief.',
      tools: { add },
      prepareStep: ({ stepNumber, steps, responseMessages }) => {
        seen.push({ stepNumber, steps: steps.length, responseMessages: responseMessages.length });
        return stepNumber === 1 ? { activeTools: [], instructions: 'Answer now.', toolChoice: 'none' } : undefined;
      },
    });
    const result = await agent.run('Add, then answer');
    expect(result.outcome).toBe('completed');
    expect(model.calls.map(sent)).toEqual([
      { tools: ['add'], system: ['Be brief.'], toolChoice: { type: 'auto' } },
      { tools: [], system: ['Answer now.'], toolChoice: { type: 'none' } },
      { tools: ['add'], system: ['Be brief.'], toolChoice: { type: 'auto' } },
    ]);
    expect(seen).toEqual([
      { stepNumber: 0, steps: 0, responseMessages: 0 },
      { stepNumber: 1, steps: 1, responseMessages: 2 },
      { stepNumber: 2, steps: 2, responseMessages: 4 },
    ]);
  });

  it('is asked once per step: a retried attempt gets the same answer', async () => {
    const model = scriptedModel([{ error: { status: 503, message: 'overloaded' } }, { text: 'Hi.' }]);
    let asked = 0;
    const agent = createAgent({ model, retry: { baseDelayMs: 1 }, prepareStep: () => void asked++ });
    expect((await agent.run('hi')).outcome).toBe('completed');
    expect(model.calls).toHaveLength(2);
    expect(asked).toBe(1);
  });

  it('fails the call, naming the field, when it returns something loopchart would not apply; and when it throws', async () => {
    const settings = createAgent({ model: scriptedModel([{ text: 'never' }]), prepareStep: () => ({ temperature: 0 }) });
    expect(await settings.run('hi')).toMatchObject({ outcome: 'failed', error: { kind: 'invalid-request', message: expect.stringMatching(/prepareStep returned temperature, which loopchart does not apply/) } });
    const throwing = createAgent({
      model: scriptedModel([{ text: 'never' }]),
      prepareStep: () => {
        throw new Error('no plan');
      },
    });
    expect(await throwing.run('hi')).toMatchObject({ outcome: 'failed', error: { kind: 'invalid-request', message: 'prepareStep failed, so the call was not made: no plan' } });
  });
});

describe('a prepareStep result as loopchart takes it', () => {
  it('keeps what it applies, reads system as instructions, and refuses the rest by name', () => {
    expect(preparedStep(undefined)).toEqual({});
    expect(preparedStep({ system: 'Answer now.', activeTools: [] })).toEqual({ instructions: 'Answer now.', activeTools: [] });
    expect(() => preparedStep({ providerOptions: {}, toolOrder: ['a'] })).toThrow(/returned providerOptions, toolOrder/);
    expect(activeToolSet({ add, sub: add }, ['sub'])).toEqual({ sub: add });
    expect(activeToolSet({ add }, undefined)).toEqual({ add });
  });
});
