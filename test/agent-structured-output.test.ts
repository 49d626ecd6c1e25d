import { Output } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { AgentOptionsError, createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const weather = Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) });

describe('structured output (the output option)', () => {
  it('sends the response format with every call and gives the final answer parsed and validated as result.output', async () => {
    const model = mockModel([
      { toolCalls: [{ name: 'add', input: { a: 20, b: 1 } }] },
      { text: ['{"city":"Oslo",', '"celsius":21}'] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool }, output: weather });

    const result = await agent.run('How warm is it in Oslo?');

    expect(result.outcome).toBe('completed');
    expect(result.output).toEqual({ city: 'Oslo', celsius: 21 });
    expect(result.text).toBe('{"city":"Oslo","celsius":21}');
    expect(model.doStreamCalls).toHaveLength(2);
    for (const call of model.doStreamCalls) {
      expect(call.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } } } });
    }
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
  });

  it('asks again at once when the answer does not match the schema, and keeps only the answer that does', async () => {
    const model = mockModel([{ text: ['{"city":"Oslo","celsius":"warm"}'] }, { text: ['{"city":"Oslo","celsius":21}'] }]);
    const failures: string[] = [];
    const agent = createAgent({ model, output: weather, retry: { maxAttempts: 2 } });
    agent.events$.subscribe((event) => {
      if (event.type === 'retry') failures.push(event.error.kind);
    });

    const result = await agent.run('How warm is it in Oslo?');

    expect(result.outcome).toBe('completed');
    expect(result.output).toEqual({ city: 'Oslo', celsius: 21 });
    expect(failures).toEqual(['invalid-output']);
    expect(result.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
  });

  it('tells the retry what did not match: the rejected answer and the schema’s complaint follow the history, which keeps neither', async () => {
    const model = mockModel([
      { text: ['{"city":"Oslo","celsius":"balmy"}'] },
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 20, b: 1 } }] },
      { text: ['{"city":"Oslo","celsius":21}'] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool }, output: weather, retry: { maxAttempts: 2 } });

    const result = await agent.run('How warm is it in Oslo?');

    expect(result).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 21 } });
    const [first, retry, next] = model.doStreamCalls.map((call) => call.prompt);
    expect(first!.map((message) => message.role)).toEqual(['user']);
    expect(retry!.slice(0, -2)).toEqual(first);
    expect(retry!.at(-2)).toEqual({ role: 'assistant', content: [{ type: 'text', text: '{"city":"Oslo","celsius":"balmy"}' }], providerOptions: undefined });
    expect(retry!.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: expect.stringContaining('celsius: Invalid input: expected number, received string') }] });
    expect(JSON.stringify(next)).not.toContain('balmy');
    expect(JSON.stringify(result.messages)).not.toContain('balmy');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('counts the tokens of an answer that did not fit the schema in the run’s usage: they were billed', async () => {
    const model = mockModel([
      { text: ['{"city":"Oslo","celsius":"warm"}'], usage: { input: 100, output: 20 } },
      { text: ['{"city":"Oslo","celsius":21}'], usage: { input: 130, output: 15 } },
    ]);
    const result = await createAgent({ model, output: weather, retry: { maxAttempts: 2 } }).run('How warm is it in Oslo?');

    expect(result.outcome).toBe('completed');
    expect(result.usage).toMatchObject({ inputTokens: 230, outputTokens: 35, totalTokens: 265 });
    expect(result.stepCount).toBe(1);
  });

  it('ends the run failed with kind invalid-output once the attempts are used up, and gives no output', async () => {
    const model = mockModel([{ text: ['It is warm in Oslo.'] }]);
    const agent = createAgent({ model, output: weather, retry: { maxAttempts: 1 } });

    const result = await agent.run('How warm is it in Oslo?');

    expect(result.outcome).toBe('failed');
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toMatch(/could not parse/);
    expect(result.output).toBeUndefined();
  });

  it('parses no step that calls tools or is cut short', async () => {
    const model = mockModel([{ text: ['{"city":'], finishReason: 'length' }]);
    const result = await createAgent({ model, output: weather }).run('go');
    expect(result.outcome).toBe('context-limit');
    expect(result.error?.kind).not.toBe('invalid-output');
    expect(result.output).toBeUndefined();
  });

  it('refuses something that is not an AI SDK Output, naming the option', () => {
    expect(() => createAgent({ model: mockModel([]), output: { schema: {} } as never })).toThrow(AgentOptionsError);
    expect(() => createAgent({ model: mockModel([]), output: { schema: {} } as never })).toThrow(/output/);
  });
});
