import { hasToolCall, isStepCount, type StopCondition, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { createAgent } from '../src/index.js';
import { stopConditionSteps } from '../src/machine/stop-condition-steps.js';
import { defaultConfig, type AgentContext } from '../src/machine/context.js';
import { usageFrom } from '../src/core/usage.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';
import { MessageHistory } from '../src/core/message-history.js';

const addCall = (id: string) => ({ toolCalls: [{ id, name: 'add', input: { a: 1, b: 2 } }] });

describe('stopWhen (the AI SDK stop conditions)', () => {
  it('hasToolCall ends the run completed after that step’s tools ran, without another model call', async () => {
    const model = mockModel([addCall('c1'), { text: ['never'] }]);
    const result = await createAgent({ model, tools: { add: addTool }, stopWhen: hasToolCall('add') }).run('go');
    expect(result.outcome).toBe('completed');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.stepCount).toBe(1);
    expect(toolOutputs(result.messages).c1).toEqual({ type: 'json', value: 3 });
    expect(model.doStreamCalls).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('isStepCount ends the run after that many steps, before maxSteps', async () => {
    const model = mockModel([addCall('c1'), addCall('c2'), addCall('c3'), { text: ['done'] }]);
    const result = await createAgent({ model, tools: { add: addTool }, maxSteps: 10, stopWhen: isStepCount(2) }).run('go');
    expect(result).toMatchObject({ outcome: 'completed', stepCount: 2, toolCallCount: 2 });
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('a condition that does not hold lets the loop finish as usual', async () => {
    const model = mockModel([addCall('c1'), { text: ['3'] }]);
    const result = await createAgent({ model, tools: { add: addTool }, stopWhen: hasToolCall('finalAnswer') }).run('go');
    expect(result).toMatchObject({ outcome: 'completed', stepCount: 2, text: '3', finishReason: 'stop' });
  });

  it('an async custom condition reads each step’s usage, tool calls and results', async () => {
    const seen: unknown[] = [];
    const overBudget: StopCondition<ToolSet> = async ({ steps }) => {
      seen.push(steps.map((step) => ({ n: step.stepNumber, calls: step.toolCalls.map((call) => call.toolName), results: step.toolResults.map((result): unknown => result.output) })));
      return steps.reduce((sum, step) => sum + (step.usage.totalTokens ?? 0), 0) >= 20;
    };
    const model = mockModel([
      { ...addCall('c1'), usage: { input: 8, output: 2 } },
      { ...addCall('c2'), usage: { input: 8, output: 2 } },
      { text: ['never'] },
    ]);
    const result = await createAgent({ model, tools: { add: addTool }, stopWhen: overBudget }).run('go');
    expect(result).toMatchObject({ outcome: 'completed', stepCount: 2 });
    expect(seen).toEqual([
      [{ n: 0, calls: ['add'], results: [3] }],
      [
        { n: 0, calls: ['add'], results: [3] },
        { n: 1, calls: ['add'], results: [3] },
      ],
    ]);
  });

  it('a condition that throws ends the run failed, saying so, with a valid history', async () => {
    const model = mockModel([addCall('c1'), { text: ['never'] }]);
    const broken: StopCondition<ToolSet> = () => {
      throw new Error('no budget service');
    };
    const result = await createAgent({ model, tools: { add: addTool }, stopWhen: broken }).run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'invalid-request', message: 'A stopWhen condition threw: no budget service' });
    await expectValidHistory(result.messages);
  });

  it('an abort while a condition is pending ends the run aborted', async () => {
    const model = mockModel([addCall('c1'), { text: ['never'] }]);
    const pending: StopCondition<ToolSet> = () => new Promise<boolean>(() => {});
    const agent = createAgent({ model, tools: { add: addTool }, stopWhen: pending });
    const run = agent.run('go');
    await waitFor(agent.actor, (snapshot) => snapshot.matches({ running: 'checkingStop' }));
    agent.abort();
    expect((await run).outcome).toBe('aborted');
  });
});

describe('stopConditionSteps', () => {
  it('gives each recorded step its calls and, from the history, their results as the model saw them', () => {
    const context: AgentContext = {
      config: defaultConfig,
      messages: MessageHistory.from([
        { role: 'user', content: 'old' },
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read', input: { path: 'x' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', output: { type: 'text', value: 'hello' } }] },
      ]),
      queues: { steering: [], followUps: [] },
      prunedToolCallIds: [],
      run: {
        startIndex: 1,
        stepRecords: [{ finishReason: 'tool-calls', usage: usageFrom({ inputTokens: 3 }), text: '', toolCalls: [{ toolCallId: 'a', toolName: 'read', input: { path: 'x' } }] }],
      } as AgentContext['run'],
    };
    const [step] = stopConditionSteps(context);
    expect(step).toMatchObject({
      stepNumber: 0,
      finishReason: 'tool-calls',
      toolCalls: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read', input: { path: 'x' } }],
      toolResults: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', input: { path: 'x' }, output: 'hello' }],
    });
  });
});
