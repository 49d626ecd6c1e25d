import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { pullStream, scriptedModel } from '../../src/test/index.js';

async function read<T>(stream: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe('pullStream', () => {
  it('produces items until next returns undefined', async () => {
    let count = 0;

    const stream = pullStream(() => (count < 3 ? count++ : undefined));

    expect(await read(stream)).toEqual([0, 1, 2]);
  });

  it('awaits asynchronous items', async () => {
    const items = ['a', 'b'];

    const stream = pullStream(async () => items.shift());

    expect(await read(stream)).toEqual(['a', 'b']);
  });

  it('produces 100,000 items only as fast as they are read', async () => {
    const total = 100_000;
    let produced = 0;
    const stream = pullStream(() => (produced < total ? { type: 'text-delta', delta: `${produced++}` } : undefined));
    const reader = stream.getReader();

    for (let index = 0; index < 5; index++) await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(produced).toBeLessThanOrEqual(6);
    await reader.cancel();
  });

  it('errors the stream when next throws', async () => {
    const stream = pullStream((): number => {
      throw new Error('source broke');
    });

    await expect(read(stream)).rejects.toThrow('source broke');
  });

  it('errors with an AbortError when the signal aborts, even while next never settles', async () => {
    const controller = new AbortController();
    const stream = pullStream(() => new Promise<number>(() => {}), { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);

    await expect(read(stream)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('stops asking for items once cancelled', async () => {
    let produced = 0;
    const stream = pullStream(() => produced++);
    const reader = stream.getReader();

    await reader.read();
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(produced).toBe(1);
  });
});

describe('a scripted turn of 100,000 text deltas', () => {
  const deltas = Array.from({ length: 100_000 }, (_, index) => `w${index} `);

  it('streams every delta through the model stream', async () => {
    const model = scriptedModel([{ text: deltas }]);

    const { stream } = await model.doStream({ prompt: [] });
    let textDeltas = 0;
    let finish: LanguageModelV4StreamPart | undefined;
    for await (const part of stream) {
      if (part.type === 'text-delta') textDeltas++;
      if (part.type === 'finish') finish = part;
    }

    expect(textDeltas).toBe(100_000);
    expect(finish).toMatchObject({ finishReason: { unified: 'stop' } });
  });

  it('arrives whole through streamText', async () => {
    const model = scriptedModel([{ text: deltas }]);

    const result = streamText({ model, prompt: 'go', maxRetries: 0 });

    expect((await result.text).length).toBe(deltas.join('').length);
  });
});
