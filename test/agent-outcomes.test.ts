import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { defaultStepName } from '../src/machine/implementations.js';
import { createAgent } from '../src/index.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { eventTypes, recordEvents } from './support/record.js';
import { addTool, failTool } from './support/tools.js';
import { usageFrom } from '../src/core/usage.js';

describe('step implementation under test', () => {
  it('agents run on the step implementation this test project names', () => {
    expect(defaultStepName).toBe(process.env.LOOPCHART_EXPECTED_STEP);
  });
});

describe('run outcomes', () => {
  it('completes a two-step tool loop with the final text, summed usage and counts', async () => {
    const model = mockModel([
      { text: ['Adding.'], toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }], usage: { input: 10, output: 4 } },
      { text: ['It is ', '3.'], usage: { input: 30, output: 6 } },
    ]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const result = await agent.run('1+2?');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('It is 3.');
    expect(result.stepCount).toBe(2);
    expect(result.toolCallCount).toBe(1);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toEqual(usageFrom({ inputTokens: 40, outputTokens: 10 }));
    expect(result.error).toBeUndefined();
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(toolOutputs(result.messages)).toEqual({ c1: { type: 'json', value: 3 } });
    expect(agent.messages).toEqual(result.messages);
    expect(agent.isRunning).toBe(false);
    await expectValidHistory(result.messages);
  });

  it('sends the tool results back to the model on the next step', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 2 } }] }, { text: ['4'] }]);
    const agent = createAgent({ model, tools: { add: addTool }, instructions: 'Be exact.' });
    await agent.run('2+2?');

    const secondPrompt = model.doStreamCalls[1]!.prompt;
    expect(secondPrompt[0]).toMatchObject({ role: 'system', content: 'Be exact.' });
    expect(secondPrompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', output: { type: 'json', value: 4 } }],
    });
  });

  it('stops with max-steps when the step limit is reached and answers the unexecuted calls', async () => {
    const model = mockModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 1 } }] },
      { toolCalls: [{ id: 'c2', name: 'add', input: { a: 2, b: 2 } }] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool }, maxSteps: 2 });
    const result = await agent.run('loop');

    expect(result.outcome).toBe('max-steps');
    expect(result.stepCount).toBe(2);
    expect(result.toolCallCount).toBe(1);
    expect(model.doStreamCalls).toHaveLength(2);
    expect(toolOutputs(result.messages).c2).toEqual({
      type: 'error-text',
      value: 'Tool call not executed: the run reached its step limit (maxSteps: 2).',
    });
    await expectValidHistory(result.messages);
  });

  it('stops with doom-loop when the same call repeats threshold times, whatever its key order', async () => {
    const model = mockModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ id: 'c2', name: 'add', input: '{ "b": 2,   "a": 1 }' }] },
      { toolCalls: [{ id: 'c3', name: 'add', input: { b: 2, a: 1 } }] },
      { text: ['never reached'] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool }, doomLoop: { threshold: 3 } });
    const result = await agent.run('loop');

    expect(result.outcome).toBe('doom-loop');
    expect(result.stepCount).toBe(3);
    expect(result.toolCallCount).toBe(2);
    expect(String((toolOutputs(result.messages).c3 as { value: string }).value)).toMatch(/repeated 3 times/);
    await expectValidHistory(result.messages);
  });

  it('does not call it a doom loop when the input changes between steps', async () => {
    const model = mockModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: 'add', input: { a: 1, b: 3 } }] },
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: ['done'] },
    ]);
    const result = await createAgent({ model, tools: { add: addTool } }).run('go');
    expect(result.outcome).toBe('completed');
    expect(result.stepCount).toBe(4);
  });

  it('ignores repeats when doom-loop detection is off', async () => {
    const same = { name: 'add', input: { a: 1, b: 2 } };
    const model = mockModel([{ toolCalls: [same] }, { toolCalls: [same] }, { toolCalls: [same] }, { text: ['done'] }]);
    const result = await createAgent({ model, tools: { add: addTool }, doomLoop: false }).run('go');
    expect(result.outcome).toBe('completed');
  });

  it.each([
    ['length', 'context-limit'],
    ['content-filter', 'content-filter'],
  ] as const)('maps finishReason %s to outcome %s and keeps the text', async (finishReason, outcome) => {
    const model = mockModel([{ text: ['partial'], finishReason }]);
    const result = await createAgent({ model }).run('go');
    expect(result.outcome).toBe(outcome);
    expect(result.finishReason).toBe(finishReason);
    expect(result.text).toBe('partial');
    expect(result.stepCount).toBe(1);
    await expectValidHistory(result.messages);
  });

  it.each(['error', 'interrupted'] as const)('a finishReason %s is a failed attempt: retried, and the next attempt’s answer is all that stays', async (finishReason) => {
    const model = mockModel([{ text: ['partial'], finishReason }, { text: ['whole answer'] }]);
    const result = await createAgent({ model, retry: { baseDelayMs: 1, maxDelayMs: 5 } }).run('go');
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('whole answer');
    expect(result.stepCount).toBe(1);
    expect(JSON.stringify(result.messages)).not.toContain('partial');
    await expectValidHistory(result.messages);
  });

  it.each(['error', 'interrupted'] as const)('a finishReason %s on the last attempt ends failed with kind stream and keeps no text', async (finishReason) => {
    const model = mockModel([{ text: ['partial'], finishReason }]);
    const result = await createAgent({ model, retry: { maxAttempts: 1 } }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error?.kind).toBe('stream');
    expect(result.text).toBe('');
    expect(result.messages.map((message) => message.role)).toEqual(['user']);
  });

  it('completes on finishReason other without tool calls', async () => {
    const result = await createAgent({ model: mockModel([{ text: ['hi'], finishReason: 'other' }]) }).run('go');
    expect(result.outcome).toBe('completed');
  });

  it('runs tool calls even when the provider reports stop with them', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 1 } }], finishReason: 'stop' }, { text: ['2'] }]);
    const result = await createAgent({ model, tools: { add: addTool } }).run('go');
    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(1);
  });

  it('fails with invalid-response when the model reports tool-calls but makes none', async () => {
    const result = await createAgent({ model: mockModel([{ text: ['hm'], finishReason: 'tool-calls' }]) }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error?.kind).toBe('invalid-response');
  });

  it('fails with the provider error kind when the call is rejected, leaving no assistant message', async () => {
    const error = new APICallError({
      message: 'Bad request',
      url: 'https://example.invalid/v1',
      requestBodyValues: {},
      statusCode: 400,
    });
    const agent = createAgent({ model: mockModel([{ reject: error }]) });
    const result = await agent.run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'invalid-request', message: 'Bad request', status: 400, retryable: false });
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
    expect(result.stepCount).toBe(1);
  });

  it('fails on an error part mid-stream and does not keep the failed attempt’s text', async () => {
    const model = mockModel([{ text: ['half an ', 'answer'], errorPart: new Error('socket hang up') }]);
    const agent = createAgent({ model, retry: { maxAttempts: 1 } });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error?.kind).toBe('network');
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
    expect(eventTypes(events)).toContain('text-delta');
  });

  it('fails when the stream ends without a finish part', async () => {
    const model = mockModel([{ text: ['x'] }]);
    const agent = createAgent({
      model,
      step: async function* (request) {
        yield { type: 'text-delta', id: '0', text: 'x' };
        void request;
      },
    });
    const result = await agent.run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'stream', message: 'The model stream ended without a finish part.' });
  });

  it('turns a throwing tool, an unknown tool and invalid input into error results and goes on', async () => {
    const model = mockModel([
      {
        toolCalls: [
          { id: 'c1', name: 'fail', input: {} },
          { id: 'c2', name: 'missing', input: {} },
          { id: 'c3', name: 'add', input: { a: 'one' } },
          { id: 'c4', name: 'add', input: '{"a": 1, "b": ' },
        ],
      },
      { text: ['recovered'] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool, fail: failTool } });
    const events = recordEvents(agent);
    const result = await agent.run('go');

    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(4);
    const outputs = toolOutputs(result.messages) as Record<string, { type: string; value: string }>;
    expect(outputs.c1).toEqual({ type: 'error-text', value: 'disk on fire' });
    expect(outputs.c2!.value).toBe("AI_NoSuchToolError: Model tried to call unavailable tool 'missing'. Available tools: add, fail.");
    expect(outputs.c3!.value).toMatch(/^AI_InvalidToolInputError: Invalid input for tool add: /);
    expect(outputs.c4!.value).toMatch(/^AI_InvalidToolInputError: Invalid input for tool add: /);
    const toolResults = events.filter((event) => event.type === 'tool-result');
    expect(toolResults.every((event) => event.isError)).toBe(true);
    // The model sees the errors on the next step.
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain('disk on fire');
    await expectValidHistory(result.messages);
  });

  it('continues the same history on a second run (multi-turn)', async () => {
    const model = mockModel([{ text: ['first'] }, { text: ['second'] }]);
    const agent = createAgent({ model, messages: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'ok' }] });
    await agent.run('one');
    const result = await agent.run('two');
    expect(result.text).toBe('second');
    expect(result.stepCount).toBe(1);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(model.doStreamCalls[1]!.prompt).toHaveLength(5);
  });

  it('rejects run() while a run is active and leaves the active run untouched', async () => {
    const model = mockModel([{ text: ['slow'], holdBeforeFirst: true }]);
    const agent = createAgent({ model });
    const first = agent.run('one');
    await expect(agent.run('two')).rejects.toThrow(/already active.*steer\(\) or followUp\(\)/);
    agent.abort();
    expect((await first).outcome).toBe('aborted');
  });
});

describe('malformed prompts', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object that is no message', { text: 'hi' }],
    ['an array of strings', ['hi']],
    ['a message without content', [{ role: 'user' }]],
    ['a message with an unknown role', { role: 'robot', content: 'hi' }],
  ])('run(%s) rejects with a TypeError that says what is wrong, and the agent keeps working', async (_name, prompt) => {
    const agent = createAgent({ model: mockModel([{ text: ['still here'] }]) });
    await expect(agent.run(prompt as never)).rejects.toThrow(TypeError);
    await expect(agent.run(prompt as never)).rejects.toThrow(/Invalid prompt|empty/);
    const result = await agent.run('hello');
    expect(result.outcome).toBe('completed');
    expect(result.messages).toHaveLength(2);
  });

  it('steer() and followUp() with a malformed message throw a TypeError and queue nothing', () => {
    const agent = createAgent({ model: mockModel([]) });
    expect(() => agent.steer(42 as never)).toThrow(TypeError);
    expect(() => agent.followUp({ role: 'user' } as never)).toThrow(TypeError);
    expect(agent.actor.getSnapshot().context.queues).toEqual({ steering: [], followUps: [] });
  });
});

describe('prompt validation', () => {
  it('an empty prompt rejects run() instead of throwing', async () => {
    const agent = createAgent({ model: mockModel([]) });
    const attempt = agent.run('');
    expect(attempt).toBeInstanceOf(Promise);
    await expect(attempt).rejects.toThrow('The prompt is empty.');
  });
});
