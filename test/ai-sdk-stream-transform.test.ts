import { createAgentUIStream, smoothStream, type Agent, ToolLoopAgent, type StreamTextTransform, type TextStreamPart, type ToolSet, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const turn = { text: ['Hello wor', 'ld, how ', 'are you?'] };
/** Word by word, at once: deterministic, no timers. */
const words = () => smoothStream({ delayInMs: null, chunking: 'word' });

const deltas = async (stream: AsyncIterable<TextStreamPart<ToolSet>>): Promise<string[]> => {
  const texts: string[] = [];
  for await (const part of stream) if (part.type === 'text-delta') texts.push(part.text);
  return texts;
};

describe('stream({ experimental_transform })', () => {
  it('re-chunks the parts as streamText does: smoothStream gives the same deltas as with ToolLoopAgent', async () => {
    const noTools: ToolSet = {};
    const sdk = await new ToolLoopAgent({ model: mockModel([turn]), tools: noTools }).stream({ prompt: 'hi', experimental_transform: words() });
    const expected = await deltas(sdk.fullStream);
    expect(expected).toEqual(['Hello ', 'world, ', 'how ', 'are ', 'you?']);

    const ours = await toAISDKAgent(createAgent({ model: mockModel([turn]) })).stream({ prompt: 'hi', experimental_transform: words() });
    expect(await deltas(ours.fullStream)).toEqual(expected);
    expect(await ours.text).toBe('Hello world, how are you?');
  });

  it('reaches createAgentUIStream, and each transform is made once with the agent\'s tools, applied in order', async () => {
    const made: ToolSet[] = [];
    const upper: StreamTextTransform<ToolSet> = ({ tools }) => {
      made.push(tools);
      return new TransformStream({ transform: (part, controller) => controller.enqueue(part.type === 'text-delta' ? { ...part, text: part.text.toUpperCase() } : part) });
    };
    const agent = createAgent({ model: mockModel([turn]), tools: { add: addTool } });
    const stream = await createAgentUIStream({
      agent: toAISDKAgent(agent),
      uiMessages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      experimental_transform: [words(), upper],
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta)).toEqual(['HELLO ', 'WORLD, ', 'HOW ', 'ARE ', 'YOU?']);
    expect(made).toEqual([agent.tools]);
  });

  it('builds the awaited fields and the callbacks from what the transforms gave, as streamText does: a transform that rewrites text changes text, steps, content, response messages, onStepFinish and onFinish', async () => {
    const script = () => mockModel([{ text: ['Let me ', 'add.'], reasoning: ['think', 'ing'], toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }], finishReason: 'tool-calls' }, turn]);
    const upperNoReasoning: StreamTextTransform<ToolSet> = () =>
      new TransformStream({
        transform(part, controller) {
          if (part.type.startsWith('reasoning')) return;
          controller.enqueue(part.type === 'text-delta' ? { ...part, text: part.text.toUpperCase() } : part);
        },
      });
    const observe = async (agent: Agent<never, ToolSet>) => {
      const stepTexts: string[] = [];
      let finished: { text: string; steps: number } | undefined;
      const result = await agent.stream({
        prompt: 'hi',
        experimental_transform: upperNoReasoning,
        onStepFinish: (step) => void stepTexts.push(`${step.text}|${step.reasoningText ?? ''}`),
        onFinish: (event) => void (finished = { text: event.text, steps: event.steps.length }),
      });
      await result.consumeStream();
      const steps = await result.steps;
      return {
        text: await result.text,
        steps: steps.map((step) => ({ text: step.text, reasoningText: step.reasoningText, reasoning: step.reasoning.length, content: step.content.filter((part) => part.type === 'text' || part.type === 'reasoning') })),
        content: (await result.content).filter((part) => part.type === 'text' || part.type === 'reasoning'),
        assistantText: (await result.response).messages.flatMap((message) => (message.role === 'assistant' && Array.isArray(message.content) ? message.content.filter((part) => part.type === 'text' || part.type === 'reasoning') : [])),
        stepTexts,
        finished,
      };
    };
    const expected = await observe(new ToolLoopAgent({ model: script(), tools: { add: addTool } }) as unknown as Agent<never, ToolSet>);
    expect(expected.text).toBe('HELLO WORLD, HOW ARE YOU?');
    expect(expected.steps[0]).toMatchObject({ text: 'LET ME ADD.', reasoningText: undefined });
    expect(await observe(toAISDKAgent(createAgent({ model: script(), tools: { add: addTool } })))).toEqual(expected);
  });

  it('leaves out of the steps the text of an attempt that failed and was retried, transformed or not', async () => {
    const model = mockModel([{ text: ['Hel', 'lo'], errorPart: { message: 'upstream reset' } }, { text: ['Hello', ' world'] }]);
    const agent = createAgent({ model, retry: { baseDelayMs: 1, maxDelayMs: 50 } });
    const upper: StreamTextTransform<ToolSet> = () => new TransformStream({ transform: (part, controller) => controller.enqueue(part.type === 'text-delta' ? { ...part, text: part.text.toUpperCase() } : part) });
    const result = await toAISDKAgent(agent).stream({ prompt: 'hi', experimental_transform: upper });
    await result.consumeStream();
    expect((await result.steps).map((step) => step.text)).toEqual(['HELLO WORLD']);
    expect(await result.text).toBe('HELLO WORLD');
  });

  it('keeps the run\'s own steps when the transforms only re-chunk, as smoothStream does', async () => {
    const result = await toAISDKAgent(createAgent({ model: mockModel([turn]) })).stream({ prompt: 'hi', experimental_transform: words() });
    const steps = await result.steps;
    expect(steps.map((step) => step.text)).toEqual(['Hello world, how are you?']);
    expect((await result.response).messages).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'Hello world, how are you?' }] }]);
  });

  it('stopStream() ends the stream and the run', async () => {
    const model = mockModel([{ text: ['Once', ' upon'], holdAfter: 3 }]);
    const agent = createAgent({ model });
    const stopAtText: StreamTextTransform<ToolSet> = ({ stopStream }) =>
      new TransformStream({
        transform(part, controller) {
          controller.enqueue(part);
          if (part.type === 'text-delta') stopStream();
        },
      });
    const result = await toAISDKAgent(agent).stream({ prompt: 'hi', experimental_transform: stopAtText });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toEqual(['start', 'start-step', 'text-start', 'text-delta']);
    expect(await (result as unknown as { loopchart: Promise<unknown> }).loopchart).toMatchObject({ outcome: 'aborted' });
  });
});

describe('experimental_steering', () => {
  it('is refused with what to use instead, not accepted and ignored', async () => {
    const sdkAgent = toAISDKAgent(createAgent({ model: mockModel([turn]) }));
    const steering = {} as never;
    await expect(sdkAgent.generate({ prompt: 'hi', experimental_steering: steering } as never)).rejects.toThrow(/experimental_steering is not supported \(steer a loopchart run with agent\.steer/);
    await expect(sdkAgent.stream({ prompt: 'hi', experimental_steering: steering } as never)).rejects.toThrow(TypeError);
  });
});
