import { createAgentUIStream, smoothStream, ToolLoopAgent, type StreamTextTransform, type TextStreamPart, type ToolSet, type UIMessageChunk } from 'ai';
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
