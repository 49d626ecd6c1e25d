import { APICallError, type LanguageModelV4StreamPart, type SharedV4Warning } from '@ai-sdk/provider';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents } from './support/record.js';
import { addTool, failTool, sleepTool } from './support/tools.js';
import { timelineLanes } from '../src/report/timeline-lanes.js';
import { machineGraph } from '../src/machine/machine-graph.js';
import { agentMachine } from '../src/machine/agent-machine.js';

describe('run trace', () => {
  it('records every state entered and left, the transitions taken with their guards, steps and tool calls', async () => {
    const model = mockModel([
      { text: ['Adding.'], toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 2 } }, { id: 'f', name: 'fail', input: {} }], usage: { input: 10, output: 3 } },
      { text: ['3'], usage: { input: 20, output: 1 } },
    ]);
    const agent = createAgent({ model, tools: { add: addTool, fail: failTool } });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    const trace = result.trace!;

    expect(trace).toMatchObject({ version: 1, runId: expect.any(String), outcome: 'completed' });
    const states = trace.states.map((entry) => entry.state);
    expect(states).toEqual([
      'idle',
      'running.preparing',
      'running.nextStep',
      'running.llm.calling',
      'running.llm.streaming',
      'running.deciding',
      'running.toolExec',
      'running.nextStep',
      'running.llm.calling',
      'running.llm.streaming',
      'running.deciding',
    ]);
    for (const [index, entry] of trace.states.entries()) {
      expect(entry.leftAt).toBeGreaterThanOrEqual(entry.enteredAt);
      if (index > 0) expect(entry.enteredAt).toBe(trace.states[index - 1]!.leftAt);
    }
    expect(trace.transitions).toContainEqual(expect.objectContaining({ from: 'running.deciding', to: 'running.toolExec', guard: 'wantsTools' }));
    expect(trace.transitions.at(-1)).toMatchObject({ from: 'running.deciding', to: 'idle', guard: 'isCompletedFinish' });

    expect(trace.steps).toHaveLength(2);
    expect(trace.steps[0]).toMatchObject({ step: 1, attempts: 1, finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 }, text: 'Adding.' });
    expect(trace.steps[0]!.firstChunkMs).toBeGreaterThanOrEqual(0);
    expect(trace.steps[0]!.durationMs).toBeGreaterThanOrEqual(trace.steps[0]!.firstChunkMs!);
    expect(trace.steps[0]!.toolCalls).toEqual([
      expect.objectContaining({ toolCallId: 'a', toolName: 'add', isError: false, outputPreview: '3', durationMs: expect.any(Number) }),
      expect.objectContaining({ toolCallId: 'f', toolName: 'fail', isError: true, outputPreview: 'disk on fire' }),
    ]);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['trace', 'run-end']);
  });

  it('records retries and hook timings', async () => {
    const busy = new APICallError({ message: 'busy', url: 'u', requestBodyValues: {}, statusCode: 503, isRetryable: true });
    const model = mockModel([{ reject: busy }, { text: ['ok'] }]);
    const agent = createAgent({ model, retry: { baseDelayMs: 1 }, hooks: { beforeLLMCall: [() => undefined] } });
    const { trace } = await agent.run('go');
    expect(trace!.retries).toEqual([expect.objectContaining({ step: 1, attempt: 2, error: expect.objectContaining({ kind: 'overloaded' }) })]);
    expect(trace!.steps[0]!.attempts).toBe(2);
    expect(trace!.states.map((entry) => entry.state)).toContain('running.retrying');
    expect(trace!.hooks).toEqual([
      expect.objectContaining({ hook: 'beforeLLMCall', index: 0, step: 1, ok: true }),
      expect.objectContaining({ hook: 'beforeLLMCall', index: 0, step: 1, ok: true }),
    ]);
  });

  it("keeps the provider's warnings of each step, every attempt's, each distinct one once", async () => {
    const unsupported = { type: 'unsupported', feature: 'temperature', details: 'no temperature here' } as const;
    const note = { type: 'other', message: 'the schema went into the instructions' } as const;
    const usage = { inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: undefined, reasoning: undefined } };
    const attempt = (warnings: SharedV4Warning[], finish: boolean): LanguageModelV4StreamPart[] => [
      { type: 'stream-start', warnings },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'ok' },
      { type: 'text-end', id: 't' },
      ...(finish ? [{ type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: 'stop' }, usage }] : []),
    ];
    const attempts = [attempt([unsupported], false), attempt([unsupported, note], true)];
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(attempts.shift()!) }) });

    const result = await createAgent({ model, retry: { baseDelayMs: 1 } }).run('go');

    expect(result.outcome).toBe('completed');
    expect(result.trace!.steps[0]).toMatchObject({ attempts: 2, warnings: [unsupported, note] });
  });

  it('each run gets its own trace', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['a'] }, { text: ['b'] }]) });
    const first = await agent.run('one');
    const second = await agent.run('two');
    expect(first.trace!.runId).not.toBe(second.trace!.runId);
    expect(second.trace!.steps).toHaveLength(1);
  });

  it('separates model time from tool time: a step with a fast stream and a slow tool has a short model time and LLM bar', async () => {
    const model = mockModel([{ toolCalls: [{ id: 's', name: 'sleep', input: { ms: 300, label: 'slow' } }] }, { text: ['done'] }]);
    const agent = createAgent({ model, tools: { sleep: sleepTool([]) } });
    const trace = (await agent.run('go')).trace!;

    const [first] = trace.steps;
    const toolMs = first!.toolCalls[0]!.durationMs!;
    expect(toolMs).toBeGreaterThanOrEqual(290);
    expect(first!.durationMs!).toBeGreaterThanOrEqual(toolMs);
    // The model's part is what the step took besides its tool, never the tool's 300 ms. Step and model
    // times are whole milliseconds of the wall clock, the tool's a fraction: allow each reading its millisecond.
    expect(first!.modelMs!).toBeLessThanOrEqual(first!.durationMs! - toolMs + 2);
    expect(first!.modelMs!).toBeLessThan(toolMs / 2);
    expect(first!.modelEndedAt!).toBeLessThanOrEqual(first!.toolCalls[0]!.startedAt);
    const llmLane = timelineLanes(trace, machineGraph(agentMachine)).lanes.find((lane) => lane.label === 'LLM calls')!;
    const bar = llmLane.bars[0]!;
    expect(bar.end - bar.start).toBeLessThan(toolMs);
  });
});
