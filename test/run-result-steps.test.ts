import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const usage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: undefined, reasoning: undefined },
};

describe("a run's result with the AI SDK's meanings", () => {
  it('has its steps as StepResults, the tool calls and results, and only the messages the run added', async () => {
    const model = mockModel([{ reasoning: ['hmm'], text: ['Adding.'], toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }] }, { reasoning: ['done'], text: ['It is 5.'] }]);
    const agent = createAgent({ model, tools: { add: addTool } });

    const result = await agent.run('What is 2 + 3?');

    expect(result.stepCount).toBe(2);
    expect(result.toolCallCount).toBe(1);
    expect(result.steps.map((step) => [step.stepNumber, step.finishReason, step.text])).toEqual([
      [0, 'tool-calls', 'Adding.'],
      [1, 'stop', 'It is 5.'],
    ]);
    expect(result.steps[0]!.model).toEqual({ provider: 'mock-provider', modelId: 'mock-model-id' });
    expect(result.toolCalls).toEqual([{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } }]);
    expect(result.toolResults).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 }, output: 5, dynamic: false }]);
    expect(result.responseMessages.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(result.reasoningText).toBe('done');
  });

  it("carries the provider's warnings and response model id to finish-step and the result", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'temperature' }] },
      { type: 'response-metadata', id: 'resp-7', modelId: 'mock-model-2025-01-01' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hi.' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage },
    ];
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
    const agent = createAgent({ model });
    const finishes: Array<Extract<AgentEvent, { type: 'finish-step' }>> = [];
    agent.events$.subscribe((event) => event.type === 'finish-step' && finishes.push(event));

    const result = await agent.run('hi');

    expect(finishes[0]).toMatchObject({ rawFinishReason: 'end_turn', response: { id: 'resp-7', modelId: 'mock-model-2025-01-01' }, warnings: [{ type: 'unsupported', feature: 'temperature' }] });
    expect(result.warnings).toEqual([{ type: 'unsupported', feature: 'temperature' }]);
    expect(result.steps[0]!.response.modelId).toBe('mock-model-2025-01-01');
  });
});
