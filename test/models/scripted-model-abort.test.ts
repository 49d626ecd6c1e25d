import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/test/index.js';

function callWith(signal: AbortSignal): LanguageModelV4CallOptions {
  return { prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }], abortSignal: signal };
}

async function readAll(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function abortAfter(ms: number): AbortController {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms);
  return controller;
}

const abortError = { name: 'AbortError' };

describe('aborting a scripted call', () => {
  it('ends a delay promptly with an AbortError', async () => {
    const model = scriptedModel([{ text: 'late', delayMs: 60_000 }]);
    const controller = abortAfter(20);
    const startedAt = performance.now();

    const { stream } = await model.doStream(callWith(controller.signal));

    const failure = await readAll(stream).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DOMException);
    expect(failure).toMatchObject(abortError);
    expect(performance.now() - startedAt).toBeLessThan(20_000);
  });

  it('ends a delay before a scripted HTTP error with an AbortError instead of the error', async () => {
    const model = scriptedModel([{ delayMs: 60_000, error: { status: 500, message: 'never seen' } }]);
    const controller = abortAfter(20);

    await expect(model.doStream(callWith(controller.signal))).rejects.toMatchObject(abortError);
  });

  it('ends a stall promptly with an AbortError after the content already sent', async () => {
    const model = scriptedModel([{ text: ['partial'], stall: true }]);
    const controller = new AbortController();
    const { stream } = await model.doStream(callWith(controller.signal));
    const reader = stream.getReader();
    const received: string[] = [];

    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      received.push(part.value.type);
      if (part.value.type === 'text-end') break;
    }
    const pendingRead = reader.read();
    setTimeout(() => controller.abort(), 20);
    const startedAt = performance.now();

    await expect(pendingRead).rejects.toMatchObject(abortError);
    expect(performance.now() - startedAt).toBeLessThan(20_000);
    expect(received).toEqual(['stream-start', 'response-metadata', 'text-start', 'text-delta', 'text-end']);
  });

  it('ends chunk delays promptly with an AbortError', async () => {
    const model = scriptedModel([{ text: ['a', 'b', 'c'], chunkDelayMs: 60_000 }]);
    const controller = abortAfter(20);

    const { stream } = await model.doStream(callWith(controller.signal));

    await expect(readAll(stream)).rejects.toMatchObject(abortError);
  });

  it('rejects a call whose signal is already aborted', async () => {
    const model = scriptedModel([{ text: 'never' }]);

    await expect(model.doStream(callWith(AbortSignal.abort()))).rejects.toMatchObject(abortError);
  });

  it('keeps the reason of a timeout signal, as fetch does', async () => {
    const model = scriptedModel([{ text: 'never', stall: true }]);

    const { stream } = await model.doStream(callWith(AbortSignal.timeout(20)));

    await expect(readAll(stream)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('ends a stalled streamText run promptly when aborted', async () => {
    const model = scriptedModel([{ text: 'thinking...', stall: true }]);
    const controller = abortAfter(30);
    const startedAt = performance.now();

    const result = streamText({ model, prompt: 'go', maxRetries: 0, abortSignal: controller.signal });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);

    expect(types).toContain('abort');
    expect(types).toContain('text-delta');
    expect(performance.now() - startedAt).toBeLessThan(20_000);
  });

  it('ends doGenerate during a stall with an AbortError', async () => {
    const model = scriptedModel([{ text: 'never', stall: true }]);
    const controller = abortAfter(20);

    await expect(model.doGenerate(callWith(controller.signal))).rejects.toMatchObject(abortError);
  });
});
