/** The adapter's `reasoning` fields, with a reasoning file among them, are shaped as ToolLoopAgent's. */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { ToolLoopAgent } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';

const usage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: undefined, reasoning: undefined },
};
const turn = (): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'A cat.' },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'c2tldGNo' } },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Here' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];
const model = () =>
  new MockLanguageModelV4({
    doStream: async () => ({ stream: new ReadableStream({ start: (c) => (turn().forEach((p) => c.enqueue(p)), c.close()) }) }),
    doGenerate: async () => ({
      content: [
        { type: 'reasoning', text: 'A cat.' },
        { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'c2tldGNo' } },
        { type: 'text', text: 'Here' },
      ],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

it("a step's reasoning (with a file of the model's reasoning) has the shape of ToolLoopAgent's StepResult, the call's reasoning that of its result", async () => {
  type Reasoned = { reasoning: unknown; steps: PromiseLike<Array<{ reasoning: unknown }>> | Array<{ reasoning: unknown }> };
  const collect = async (agent: { stream: (options: { prompt: string }) => PromiseLike<Reasoned & { consumeStream: () => PromiseLike<void> }>; generate: (options: { prompt: string }) => PromiseLike<Reasoned> }) => {
    const result = await agent.stream({ prompt: 'Draw' });
    await result.consumeStream();
    const steps = await result.steps;
    const generated = await agent.generate({ prompt: 'Draw' });
    return { stepReasoning: plain(steps[0]!.reasoning), streamReasoning: plain(await result.reasoning), generateReasoning: plain(generated.reasoning), generateStepReasoning: plain((await generated.steps)[0]!.reasoning) };
  };
  const theirs = await collect(new ToolLoopAgent({ model: model() }));
  const ours = await collect(toAISDKAgent(createAgent({ model: model() })));
  expect(ours).toEqual(theirs);
});
