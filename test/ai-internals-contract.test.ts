import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import { tool } from 'ai';
import * as internal from 'ai/internal';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DIRECT_STEP_INTERNALS, missingAiInternals, TESTED_AI_RANGE, fallbackToolModelOutput } from '../src/model-call/ai-internals.js';
import { chooseDefaultStep } from '../src/model-call/default-step.js';
import { directStep } from '../src/model-call/direct-step.js';
import { streamLanguageModelCallStep } from '../src/model-call/stream-language-model-call-step.js';

/** Fails with a message that names the helper and the ai range loopchart is tested with. */
async function contract(name: string, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (error) {
    throw new Error(
      `ai/internal.${name} changed shape (${error instanceof Error ? error.message : String(error)}): directStep relies on it; loopchart is tested with ai ${TESTED_AI_RANGE}`,
      { cause: error },
    );
  }
}

const add = tool({ description: 'adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b });

describe('the ai/internal helpers directStep relies on (contract with the installed ai)', () => {
  it(`are all exported as functions (loopchart is tested with ai ${TESTED_AI_RANGE})`, () => {
    expect(missingAiInternals([...DIRECT_STEP_INTERNALS, 'createToolModelOutput'])).toEqual([]);
  });

  it('standardizePrompt and convertToLanguageModelPrompt turn instructions and messages into the provider prompt', () =>
    contract('standardizePrompt / convertToLanguageModelPrompt', async () => {
      const prompt = await internal.standardizePrompt({ instructions: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] });
      expect(prompt.messages).toEqual([{ role: 'user', content: 'hi' }]);
      const converted = await internal.convertToLanguageModelPrompt({
        prompt: { instructions: prompt.instructions, messages: prompt.messages },
        supportedUrls: {},
        download: undefined,
        abortSignal: undefined,
        provider: 'mock',
      });
      expect(converted).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }], providerOptions: undefined },
      ]);
    }));

  it('prepareTools and prepareToolChoice give the provider its tool list and choice', () =>
    contract('prepareTools / prepareToolChoice', async () => {
      const tools = await internal.prepareTools({ tools: { add } });
      expect(tools).toEqual([expect.objectContaining({ type: 'function', name: 'add', description: 'adds', inputSchema: expect.objectContaining({ type: 'object' }) })]);
      expect(internal.prepareToolChoice({ toolChoice: undefined })).toEqual({ type: 'auto' });
    }));

  it('parseToolCall validates input against the tool and marks a bad call invalid instead of throwing', () =>
    contract('parseToolCall', async () => {
      const parse = (toolName: string, input: string) =>
        internal.parseToolCall({
          toolCall: { type: 'tool-call', toolCallId: 'c1', toolName, input },
          tools: { add },
          repairToolCall: undefined,
          refineToolInput: undefined,
          instructions: undefined,
          messages: [],
          abortSignal: undefined,
        });
      expect(await parse('add', '{"a":1,"b":2}')).toMatchObject({ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 } });
      expect(await parse('add', '{"a":"x"}')).toMatchObject({ toolName: 'add', invalid: true, error: expect.anything() });
      expect(await parse('nope', '{}')).toMatchObject({ toolName: 'nope', invalid: true });
    }));

  it('asLanguageModelUsage turns the provider usage into LanguageModelUsage', () =>
    contract('asLanguageModelUsage', () => {
      const usage: LanguageModelV4Usage = {
        inputTokens: { total: 10, noCache: 8, cacheRead: 2, cacheWrite: undefined },
        outputTokens: { total: 5, text: 4, reasoning: 1 },
      };
      expect(internal.asLanguageModelUsage(usage)).toMatchObject({
        inputTokens: 10,
        outputTokens: 5,
        totalTokens: 15,
        inputTokenDetails: { noCacheTokens: 8, cacheReadTokens: 2 },
        outputTokenDetails: { textTokens: 4, reasoningTokens: 1 },
      });
    }));

  it('resolveLanguageModel returns a V4 model as it is', () =>
    contract('resolveLanguageModel', () => {
      const model = new MockLanguageModelV4();
      expect(internal.resolveLanguageModel(model)).toBe(model);
    }));

  it('createToolModelOutput applies the default conversion: a string as text, anything else as JSON', () =>
    contract('createToolModelOutput', async () => {
      const convert = (output: unknown) => internal.createToolModelOutput({ toolCallId: 'c1', input: {}, output, tool: add, errorMode: 'none' });
      expect(await convert('ok')).toEqual({ type: 'text', value: 'ok' });
      expect(await convert({ sum: 3 })).toEqual({ type: 'json', value: { sum: 3 } });
    }));
});

describe('when an ai release drops a helper', () => {
  it('missingAiInternals names each helper that is not a function in the module', () => {
    expect(missingAiInternals(['parseToolCall', 'standardizePrompt'], { standardizePrompt: () => {} })).toEqual(['parseToolCall']);
  });

  it('agents fall back to streamLanguageModelCallStep (public API only) instead of failing to load', () => {
    expect(chooseDefaultStep(['parseToolCall'])).toEqual({ step: streamLanguageModelCallStep, name: 'streamLanguageModelCallStep' });
    expect(chooseDefaultStep([])).toEqual({ step: directStep, name: 'directStep' });
  });

  it('the tool-output fallback converts like the AI SDK does', async () => {
    const shown = tool({ inputSchema: z.object({}), execute: async () => 1, toModelOutput: ({ output }) => ({ type: 'text', value: `n=${String(output)}` }) });
    for (const [output, used] of [['ok', add], [{ sum: 3 }, add], [7, shown]] as const) {
      const args = { toolCallId: 'c1', input: {}, output, tool: used };
      expect(await fallbackToolModelOutput(args)).toEqual(await internal.createToolModelOutput({ ...args, errorMode: 'none' }));
    }
  });
});
