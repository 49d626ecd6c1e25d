import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent, type AgentOptions, type RunResult } from '../src/index.js';
import { expectValidHistory } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

/** Runs `prompt` and records every event of the run, the trace event included. */
async function runRecorded(options: AgentOptions, act?: (agent: ReturnType<typeof createAgent>) => void) {
  const agent = createAgent(options);
  const events: AgentEvent[] = [];
  agent.events$.subscribe((event) => events.push(event));
  const running = agent.run('go');
  act?.(agent);
  const result = await running;
  return { agent, events, result, types: events.map((event) => event.type) };
}

function expectOneWholeRun(types: string[], result: RunResult) {
  expect(types[0]).toBe('run-start');
  expect(types.filter((type) => type === 'run-start')).toHaveLength(1);
  expect(types.filter((type) => type === 'run-end')).toHaveLength(1);
  expect(types.at(-1)).toBe('run-end');
  expect(types).toContain('trace');
  expect(result.trace?.outcome).toBe(result.outcome);
}

describe('every run begins and ends in the machine, with run-start, run-end and a trace', () => {
  it('a transformPrompt that throws: the run ends failed in preparing, and the prompt never enters the history', async () => {
    const { events, result, types } = await runRecorded({
      model: mockModel([{ text: ['never'] }]),
      messages: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'ok' }],
      transformPrompt: () => Promise.reject(new Error('disk gone')),
    });
    expectOneWholeRun(types, result);
    expect(result.outcome).toBe('failed');
    expect(result.error).toEqual({ kind: 'invalid-request', message: 'transformPrompt failed: disk gone' });
    expect(result.messages.map((message) => message.content)).toEqual(['earlier', 'ok']);
    expect(events.find((event) => event.type === 'run-start')).toMatchObject({ prompt: [{ role: 'user', content: 'go' }] });
    expect(result.trace?.states.map((visit) => visit.state)).toContain('running.preparing');
  });

  it('a transformPrompt that returns no list of messages fails the run with a message saying so', async () => {
    const { result, types } = await runRecorded({
      model: mockModel([{ text: ['never'] }]),
      transformPrompt: async () => 'not messages' as unknown as ModelMessage[],
    });
    expectOneWholeRun(types, result);
    expect(result.error?.message).toBe('transformPrompt returned an invalid prompt: expected an array of messages');
  });

  it('an abort while transformPrompt runs: the transform sees the abort and the run ends aborted through the same stop', async () => {
    let signal: AbortSignal | undefined;
    const { result, types, agent } = await runRecorded(
      {
        model: mockModel([{ text: ['never'] }]),
        transformPrompt: (_messages, options) => {
          signal = options?.signal;
          return new Promise<never>(() => {});
        },
      },
      (running) => running.abort('changed my mind'),
    );
    expectOneWholeRun(types, result);
    expect(result.outcome).toBe('aborted');
    expect(signal?.aborted).toBe(true);
    // Nothing the caller said is lost: the prompt enters the history as given.
    expect(result.messages).toEqual([{ role: 'user', content: 'go' }]);
    expect(agent.isRunning).toBe(false);
  });

  it('the run deadline stops a transformPrompt that never settles', async () => {
    const { result, types } = await runRecorded({
      model: mockModel([{ text: ['never'] }]),
      timeout: { totalMs: 20 },
      transformPrompt: () => new Promise<never>(() => {}),
    });
    expectOneWholeRun(types, result);
    expect(result.outcome).toBe('timeout');
  });

  it('a crash inside the machine ends through endRun: run-end with a trace, tool calls answered, the agent usable', async () => {
    let calls = 0;
    const { agent, result, types } = await runRecorded({
      model: mockModel([{ text: ['fine'] }]),
      step: async function* (request) {
        calls++;
        if (calls === 1) {
          // A BigInt input cannot be fingerprinted: the machine's doom-loop bookkeeping throws.
          yield { type: 'tool-call', toolCall: { toolCallId: 'x', toolName: 'add', input: { a: 1n } } };
          yield { type: 'finish', finishReason: 'tool-calls', usage: undefined as never };
          return;
        }
        const { streamLanguageModelCallStep } = await import('../src/index.js');
        yield* streamLanguageModelCallStep(request);
      },
      tools: { add: addTool },
    });
    expectOneWholeRun(types, result);
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toMatch(/^loopchart internal error: /);
    await expectValidHistory(result.messages);
    expect((await agent.run('again')).outcome).toBe('completed');
  });
});

describe('abort while the prompt is transformed', () => {
  it('abort during transformPrompt ends the run aborted', async () => {
    let transforming!: () => void;
    const started = new Promise<void>((resolve) => (transforming = resolve));
    const agent = createAgent({
      model: mockModel([{ text: ['never'] }]),
      transformPrompt: (messages, options) =>
        new Promise((_resolve, reject) => {
          transforming();
          options?.signal?.addEventListener('abort', () => reject(new Error(String(options.signal?.reason))));
        }),
    });
    const run = agent.run('go');
    await started;
    agent.abort('user stop');
    expect((await run).outcome).toBe('aborted');
  });
});
