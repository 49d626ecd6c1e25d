import { Output } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dropsResponseSchema, schemaInInstructionsWarning, structuredOutputInstructions } from '../src/actors/schema-instructions.js';

const output = Output.object({ schema: z.object({ city: z.string() }) });
const without = Object.assign(new MockLanguageModelV4(), { supportsStructuredOutputs: false });
const withIt = Object.assign(new MockLanguageModelV4(), { supportsStructuredOutputs: true });
const suffix = 'You MUST answer with a JSON object that matches the JSON schema above.';

describe('the output schema in the instructions', () => {
  it('is for a model that says it drops the schema from its response format, and no other', () => {
    expect(dropsResponseSchema(without)).toBe(true);
    expect(dropsResponseSchema(withIt)).toBe(false);
    expect(dropsResponseSchema(new MockLanguageModelV4())).toBe(false);
    expect(dropsResponseSchema('openai/gpt-4.1')).toBe(false);
  });

  it('goes after string instructions in the AI SDK’s words, with a warning that says so', async () => {
    const { schema } = (await output.responseFormat) as { schema: object };
    const result = await structuredOutputInstructions({ model: without, instructions: 'Be brief.', output });
    expect(result.instructions).toBe(`Be brief.\n\nJSON schema:\n${JSON.stringify(schema)}\n${suffix}`);
    expect(result.warnings).toEqual([schemaInInstructionsWarning]);
    expect(schemaInInstructionsWarning).toMatchObject({ type: 'compatibility', feature: 'responseFormat', details: expect.stringContaining('supportsStructuredOutputs: true') });
  });

  it('are the instructions themselves when there were none, and a system message of its own after system messages', async () => {
    const { schema } = (await output.responseFormat) as { schema: object };
    expect((await structuredOutputInstructions({ model: without, instructions: undefined, output })).instructions).toBe(`JSON schema:\n${JSON.stringify(schema)}\n${suffix}`);
    const cached = { role: 'system' as const, content: 'Be brief.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } };
    expect((await structuredOutputInstructions({ model: without, instructions: cached, output })).instructions).toEqual([
      cached,
      { role: 'system', content: `JSON schema:\n${JSON.stringify(schema)}\n${suffix}` },
    ]);
    expect((await structuredOutputInstructions({ model: without, instructions: [cached, cached], output })).instructions).toHaveLength(3);
  });

  it('leaves the instructions alone for a model that takes the schema, an output without one, or no output', async () => {
    expect(await structuredOutputInstructions({ model: withIt, instructions: 'Be brief.', output })).toEqual({ instructions: 'Be brief.', warnings: [] });
    expect(await structuredOutputInstructions({ model: without, instructions: 'Be brief.', output: Output.text() })).toEqual({ instructions: 'Be brief.', warnings: [] });
    expect(await structuredOutputInstructions({ model: without, instructions: 'Be brief.', output: Output.json() })).toEqual({ instructions: 'Be brief.', warnings: [] });
    expect(await structuredOutputInstructions({ model: without, instructions: 'Be brief.', output: undefined })).toEqual({ instructions: 'Be brief.', warnings: [] });
  });
});
