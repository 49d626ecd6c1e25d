import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { experimental_streamLanguageModelCall, generateText, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../src/test/index.js';

const tools = {
  readFile: tool({ inputSchema: z.object({ path: z.string() }) }),
};

const userPrompt = (text: string): LanguageModelV4CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
});

async function partsOf(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('scriptedModel through streamText', () => {
  it('streams the scripted text and reasoning and finishes with stop', async () => {
    const model = scriptedModel([{ reasoning: 'Think first.', text: 'Hello there, world' }]);

    const result = streamText({ model, prompt: 'Say hello', maxRetries: 0 });

    expect(await result.text).toBe('Hello there, world');
    expect(await result.reasoningText).toBe('Think first.');
    expect(await result.finishReason).toBe('stop');
  });

  it('reports scripted tool calls with parsed input and finishes with tool-calls', async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'call-a', name: 'readFile', input: { path: 'README.md' } }] },
    ]);

    const result = streamText({ model, tools, prompt: 'Read the README', maxRetries: 0 });

    expect(await result.toolCalls).toMatchObject([
      { toolCallId: 'call-a', toolName: 'readFile', input: { path: 'README.md' } },
    ]);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('reports the scripted usage', async () => {
    const model = scriptedModel([{ text: 'ok', usage: { inputTokens: 120, outputTokens: 7 } }]);

    const result = streamText({ model, prompt: 'Hi', maxRetries: 0 });

    expect(await result.usage).toMatchObject({ inputTokens: 120, outputTokens: 7, totalTokens: 127 });
  });

  it('estimates usage at one token per four characters when the script gives none', async () => {
    const model = scriptedModel([{ text: 'x'.repeat(40), reasoning: 'y'.repeat(8) }]);

    const result = streamText({ model, prompt: 'z'.repeat(400), maxRetries: 0 });

    expect(await result.usage).toMatchObject({
      inputTokens: 100,
      outputTokens: 12,
      outputTokenDetails: { textTokens: 10, reasoningTokens: 2 },
    });
  });

  it('plays one turn per step and records the prompt of every call', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'readFile', input: { path: 'a.txt' } }] },
      { text: 'The file says hi.' },
    ]);
    const toolsThatRun = {
      readFile: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'hi' }),
    };

    const result = streamText({
      model,
      tools: toolsThatRun,
      prompt: 'What is in a.txt?',
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });

    expect(await result.text).toBe('The file says hi.');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]?.prompt).toContainEqual(
      expect.objectContaining({
        role: 'tool',
        content: [expect.objectContaining({ toolCallId: 'call-1-1', output: { type: 'text', value: 'hi' } })],
      }),
    );
  });
});

describe('scriptedModel through experimental_streamLanguageModelCall', () => {
  it('emits text, tool calls, finish reason and usage as one model call', async () => {
    const model = scriptedModel([
      {
        text: ['Let me ', 'check.'],
        toolCalls: [{ id: 'call-7', name: 'readFile', input: { path: 'notes.md' } }],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
    ]);

    const { stream } = await experimental_streamLanguageModelCall({ model, tools, prompt: 'Check the notes' });
    const parts = [];
    for await (const part of stream) parts.push(part);

    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.text)).toEqual([
      'Let me ',
      'check.',
    ]);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      toolCallId: 'call-7',
      toolName: 'readFile',
      input: { path: 'notes.md' },
    });
    expect(parts.at(-1)).toMatchObject({
      type: 'model-call-end',
      finishReason: 'tool-calls',
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  });
});

describe('scriptedModel stream parts', () => {
  it('sends the parts in the order a provider does', async () => {
    const model = scriptedModel([
      { reasoning: ['hm'], text: ['hi'], toolCalls: [{ id: 'c1', name: 'readFile', input: { path: 'x' } }] },
    ]);

    const { stream } = await model.doStream(userPrompt('go'));
    const parts = await partsOf(stream);

    expect(parts.map((part) => part.type)).toEqual([
      'stream-start',
      'response-metadata',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    expect(parts).toContainEqual({ type: 'text-start', id: '1' });
    expect(parts).toContainEqual({ type: 'tool-call', toolCallId: 'c1', toolName: 'readFile', input: '{"path":"x"}' });
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool-calls' },
      usage: { inputTokens: { total: 1 }, outputTokens: { total: expect.any(Number) } },
    });
  });

  it('splits string text into words that keep their whitespace', async () => {
    const model = scriptedModel([{ text: 'One  two\nthree ' }]);

    const { stream } = await model.doStream(userPrompt('go'));
    const deltas = (await partsOf(stream)).flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));

    expect(deltas).toEqual(['One', '  two', '\nthree', ' ']);
  });

  it('splits string text into chunks of chunkSize characters when asked', async () => {
    const model = scriptedModel([{ text: 'abcdefg' }], { chunkSize: 3 });

    const { stream } = await model.doStream(userPrompt('go'));
    const deltas = (await partsOf(stream)).flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));

    expect(deltas).toEqual(['abc', 'def', 'g']);
  });

  it('closes without a finish part when the turn says so', async () => {
    const model = scriptedModel([{ text: 'cut', endWithoutFinish: true }]);

    const { stream } = await model.doStream(userPrompt('go'));
    const parts = await partsOf(stream);

    expect(parts.at(-1)).toEqual({ type: 'text-end', id: '0' });
  });

  it('uses the scripted finish reason', async () => {
    const model = scriptedModel([{ text: 'trunc', finishReason: 'length' }]);

    const result = streamText({ model, prompt: 'go', maxRetries: 0 });

    expect(await result.finishReason).toBe('length');
  });

  it('reports its identity as a v4 model', () => {
    const model = scriptedModel([], { modelId: 'fake-gpt' });

    expect(model).toMatchObject({
      specificationVersion: 'v4',
      provider: 'scripted',
      modelId: 'fake-gpt',
      supportedUrls: {},
    });
    expect(scriptedModel([]).modelId).toBe('scripted');
  });
});

describe('scriptedModel.doGenerate', () => {
  it('returns the turn as content, finish reason and usage', async () => {
    const model = scriptedModel([
      {
        reasoning: 'plan',
        text: ['a', 'b'],
        toolCalls: [{ id: 'c1', name: 'readFile', input: { path: 'x' } }],
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);

    const result = await model.doGenerate(userPrompt('go'));

    expect(result.content).toEqual([
      { type: 'reasoning', text: 'plan' },
      { type: 'text', text: 'ab' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'readFile', input: '{"path":"x"}' },
    ]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool-calls' });
    expect(result.usage.inputTokens.total).toBe(3);
    expect(result.usage.outputTokens.total).toBe(4);
    expect(result.warnings).toEqual([]);
  });

  it('serves generateText', async () => {
    const model = scriptedModel([{ text: 'generated' }]);

    const result = await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(result.text).toBe('generated');
    expect(model.calls).toHaveLength(1);
  });
});
