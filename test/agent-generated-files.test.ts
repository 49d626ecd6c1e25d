/**
 * Files the model generates (an image, audio) and files of its reasoning: they stay in the step's
 * assistant message where they streamed, go back to the provider with the history, and show in the
 * events, the step results and the adapter's stream as `ToolLoopAgent` shows them (see also the
 * conformance scenario 'generated files'). (Run once per step implementation: see vitest.config.ts.)
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { ToolLoopAgent } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent, directStep, type AgentEvent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { expectValidHistory } from './support/history.js';
import { scriptedUsage as usage, streamPartsModel as scripted, textTurn } from './support/stream-parts-model.js';

const PNG = new Uint8Array([137, 80, 78, 71]);

const drawTurn = (extra: LanguageModelV4StreamPart[] = []): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'A cat.' },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'c2tldGNo' } },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Here it is:' },
  { type: 'text-end', id: 't1' },
  { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
  ...extra,
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

describe('generated files', () => {
  it('stay in the assistant message where they streamed, as base64, and are reported as file events', async () => {
    const { model } = scripted([() => drawTurn()]);
    const agent = createAgent({ model });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));
    const result = await agent.run('Draw a cat');

    expect(result.outcome).toBe('completed');
    const assistant = result.messages.at(-1)!;
    expect(assistant.role).toBe('assistant');
    expect(assistant.content).toEqual([
      { type: 'reasoning', text: 'A cat.' },
      { type: 'reasoning-file', data: 'c2tldGNo', mediaType: 'image/png' },
      { type: 'text', text: 'Here it is:' },
      { type: 'file', data: Buffer.from(PNG).toString('base64'), mediaType: 'image/png' },
    ]);
    await expectValidHistory(result.messages);
    const files = events.filter((event) => event.type === 'file');
    expect(files.map((event) => event.type === 'file' && { type: event.file.type, mediaType: event.file.mediaType })).toEqual([
      { type: 'reasoning-file', mediaType: 'image/png' },
      { type: 'file', mediaType: 'image/png' },
    ]);
    expect(files[1]).toMatchObject({ file: { data: { type: 'data', data: Buffer.from(PNG).toString('base64') } } });
    expect(result.steps[0]!.files.map((file) => [file.mediaType, file.base64])).toEqual([['image/png', Buffer.from(PNG).toString('base64')]]);
    expect(result.reasoningText).toBe('A cat.');
  });

  it('go back to the provider with the history, as they go back from ToolLoopAgent', async () => {
    const ours = scripted([() => drawTurn(), textTurn('t2', 'A cat.')]);
    const agent = createAgent({ model: ours.model });
    await agent.run('Draw a cat');
    await agent.run('What is it?');

    const theirs = scripted([() => drawTurn(), textTurn('t2', 'A cat.')]);
    const first = await new ToolLoopAgent({ model: theirs.model }).stream({ prompt: 'Draw a cat' });
    await first.consumeStream();
    const history = (await first.response).messages;
    const second = await new ToolLoopAgent({ model: theirs.model }).stream({ messages: [{ role: 'user', content: 'Draw a cat' }, ...history, { role: 'user', content: 'What is it?' }] });
    await second.consumeStream();

    const assistantOf = (prompt: LanguageModelV4CallOptions['prompt']) => prompt.find((message) => message.role === 'assistant');
    expect(assistantOf(ours.prompts[1]!)).toEqual(assistantOf(theirs.prompts[1]!));
    expect(JSON.stringify(assistantOf(ours.prompts[1]!))).toContain('"type":"file"');
  });

  it('show in the adapter\'s stream and results as ToolLoopAgent shows them', async () => {
    const collect = async (agent: { stream: (options: { prompt: string }) => PromiseLike<{ fullStream: AsyncIterable<{ type: string }>; files: PromiseLike<Array<{ base64: string; mediaType: string }>> }> }) => {
      const result = await agent.stream({ prompt: 'Draw a cat' });
      const parts: string[] = [];
      for await (const part of result.fullStream) if (part.type.includes('file') || part.type.endsWith('-end')) parts.push(part.type);
      return { parts, files: (await result.files).map((file) => [file.mediaType, file.base64]) };
    };
    const ours = await collect(toAISDKAgent(createAgent({ model: scripted([() => drawTurn()]).model })));
    const theirs = await collect(new ToolLoopAgent({ model: scripted([() => drawTurn()]).model }));
    expect(ours).toEqual(theirs);
    expect(ours.parts).toContain('file');
  });

  it("give a step's reasoning the shape of ToolLoopAgent's StepResult, and the call's reasoning that of its result", async () => {
    // One model for stream and generate: doGenerate answers with the content drawTurn streams.
    const model = () =>
      new MockLanguageModelV4({
        doStream: async () => ({ stream: new ReadableStream({ start: (controller) => (drawTurn().forEach((part) => controller.enqueue(part)), controller.close()) }) }),
        doGenerate: async () => ({
          content: [
            { type: 'reasoning', text: 'A cat.' },
            { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'c2tldGNo' } },
            { type: 'text', text: 'Here it is:' },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
          ],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        }),
      });
    const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
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
    expect(JSON.stringify(ours.stepReasoning)).toContain('"data":"c2tldGNo"');
  });

  // The default step's behaviour, named: streamLanguageModelCallStep downloads such a file, as streamText does.
  it('given by URL, are kept by directStep as their URL in the history and the event, not downloaded, and are no step file', async () => {
    const url = new URL('https://files.example.invalid/cat.png');
    const { model } = scripted([() => [{ type: 'stream-start', warnings: [] }, { type: 'file', mediaType: 'image/png', data: { type: 'url', url } }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }]]);
    const agent = createAgent({ model, step: directStep });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));
    const result = await agent.run('Draw a cat');
    expect(result.outcome).toBe('completed');
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'file', data: url, mediaType: 'image/png' }] });
    expect(events.find((event) => event.type === 'file')).toMatchObject({ file: { data: { type: 'url', url } } });
    expect(result.steps[0]!.files).toEqual([]);
  });
});
