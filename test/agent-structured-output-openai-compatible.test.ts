/**
 * Structured output through the real `@ai-sdk/openai-compatible` provider, over HTTP to a local
 * chat-completions server: what the server is sent, and what the run says of it.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Output } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../src/index.js';
import { streamResponse, useOpenAIServers } from './support/openai-sse-server.js';

const weather = Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) });
const serve = useOpenAIServers();

async function runAgainstServer(supportsStructuredOutputs: boolean | undefined) {
  const server = await serve([streamResponse({ text: ['{"city":"Oslo",', '"celsius":4}'] })]);
  const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, ...(supportsStructuredOutputs !== undefined ? { supportsStructuredOutputs } : {}) });
  const agent = createAgent({ model: provider.chatModel('qwen'), instructions: 'Answer briefly.', output: weather });
  const result = await agent.run('How warm is it in Oslo?');
  return { result, request: server.requests[0]!.body! };
}

describe('structured output on @ai-sdk/openai-compatible', () => {
  it('by default puts the schema into the instructions, and the run carries the provider’s warning and its own', async () => {
    const { result, request } = await runAgainstServer(undefined);

    expect(result).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 4 } });
    expect(request.response_format).toEqual({ type: 'json_object' });
    const system = request.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/^Answer briefly\.\n\nJSON schema:\n\{.*"city":\{"type":"string"\}.*"celsius":\{"type":"number"\}.*\}\nYou MUST answer with a JSON object that matches the JSON schema above\.$/s);
    expect(result.warnings).toEqual([
      { type: 'unsupported', feature: 'responseFormat', details: 'JSON response format schema is only supported with structuredOutputs' },
      expect.objectContaining({ type: 'compatibility', feature: 'responseFormat', details: expect.stringContaining('went into the instructions') }),
    ]);
    expect(result.trace!.steps[0]!.warnings).toEqual(result.warnings);
  });

  it('with supportsStructuredOutputs sends the schema as a json_schema response format, and leaves the instructions alone', async () => {
    const { result, request } = await runAgainstServer(true);

    expect(result).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 4 } });
    expect(request.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: { properties: { city: { type: 'string' }, celsius: { type: 'number' } } } } });
    expect(request.messages[0]).toEqual({ role: 'system', content: 'Answer briefly.' });
    expect(result.warnings).toEqual([]);
  });
});
