import { describe, expect, it, vi } from 'vitest';
import { createAgent } from '../src/index.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { eventTypes, recordEvents, recordStates } from './support/record.js';
import { sleepTool } from './support/tools.js';
import { tool } from 'ai';
import { z } from 'zod';

function waitForEvent(agent: ReturnType<typeof createAgent>, type: string): Promise<void> {
  return new Promise((resolve) => {
    const subscription = agent.events$.subscribe((event) => {
      if (event.type === type) {
        subscription.unsubscribe();
        resolve();
      }
    });
  });
}

/** Waits as long as a loaded machine needs (short of the test's own limit). */
async function until(condition: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(condition()).toBe(true), { timeout: 50_000, interval: 1 });
}

describe('abort', () => {
  it('abort during calling ends the run aborted with no assistant message and aborts the provider call', async () => {
    const model = mockModel([{ text: ['never'], holdBeforeFirst: true }]);
    const agent = createAgent({ model });
    const states = recordStates(agent);
    const run = agent.run('go');
    expect(states.at(-1)).toBe('running.llm.calling');
    await until(() => model.doStreamCalls.length === 1);
    agent.abort('user pressed stop');
    const result = await run;

    expect(result.outcome).toBe('aborted');
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    expect(states).toEqual(['idle', 'running.preparing', 'running.llm.calling', 'idle']);
    expect(agent.isRunning).toBe(false);
  });

  it('abort during streaming keeps the text already streamed and ends aborted', async () => {
    const model = mockModel([{ text: ['Hello ', 'wor', 'ld'], holdAfter: 4 }]);
    const agent = createAgent({ model });
    const states = recordStates(agent);
    const events = recordEvents(agent);
    const run = agent.run('go');
    await model.untilHeld();
    agent.abort();
    const result = await run;

    const streamed = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(result.outcome).toBe('aborted');
    expect(streamed).toBe('Hello wor');
    expect(result.text).toBe(streamed);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello wor' }] });
    expect(states).toEqual(['idle', 'running.preparing', 'running.llm.calling', 'running.llm.streaming', 'idle']);
    expect(eventTypes(events).at(-1)).toBe('run-end');
  });

  it('abort during streaming after a complete tool call answers that call as interrupted', async () => {
    // Parts: stream-start, text-start, text-delta, text-end, tool-call | hold | finish.
    const model = mockModel([{ text: ['Let me look.'], toolCalls: [{ id: 'c1', name: 'sleep', input: { ms: 1, label: 'a' } }], holdAfter: 5 }]);
    const log: string[] = [];
    const agent = createAgent({ model, tools: { sleep: sleepTool(log) } });
    const run = agent.run('go');
    await model.untilHeld();
    agent.abort();
    const result = await run;

    expect(result.outcome).toBe('aborted');
    expect(log).toEqual([]);
    expect(result.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text' }, { type: 'tool-call', toolCallId: 'c1' }] });
    expect(toolOutputs(result.messages).c1).toMatchObject({ type: 'error-text', value: expect.stringMatching(/interrupted/) });
    await expectValidHistory(result.messages);
  });

  it('abort during toolExec leaves no dangling tool call, even with a tool that ignores its signal', async () => {
    const log: string[] = [];
    const model = mockModel([
      {
        toolCalls: [
          { id: 'fast', name: 'sleep', input: { ms: 1, label: 'fast' } },
          { id: 'stubborn', name: 'stubborn', input: { ms: 60_000, label: 'stubborn' } },
          { id: 'polite', name: 'sleep', input: { ms: 60_000, label: 'polite' } },
        ],
      },
    ]);
    const agent = createAgent({ model, tools: { sleep: sleepTool(log), stubborn: sleepTool(log, { ignoreSignal: true }) } });
    const states = recordStates(agent);
    const run = agent.run('go');
    await waitForEvent(agent, 'tool-result');
    const started = performance.now();
    agent.abort('enough');
    const result = await run;

    // The stubborn tool sleeps 60 s; the run does not wait for it.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.outcome).toBe('aborted');
    expect(result.toolCallCount).toBe(1);
    const outputs = toolOutputs(result.messages);
    expect(outputs.fast).toEqual({ type: 'text', value: 'slept fast' });
    expect(outputs.stubborn).toEqual({ type: 'error-text', value: 'Tool call interrupted: the run was aborted (enough).' });
    expect(outputs.polite).toEqual({ type: 'error-text', value: 'Tool call interrupted: the run was aborted (enough).' });
    expect(log).toContain('aborted polite');
    expect(states).toContain('running.toolExec');
    expect(states.at(-1)).toBe('idle');
    await expectValidHistory(result.messages);
  });

  it('abort right after run() aborts before the model is called at all', async () => {
    const model = mockModel([{ text: ['never'] }]);
    const agent = createAgent({ model });
    const run = agent.run('go');
    agent.abort();
    const result = await run;
    expect(result.outcome).toBe('aborted');
    expect(model.doStreamCalls).toHaveLength(0);
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('abort while idle does nothing and the next run works', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['fine'] }]) });
    agent.abort();
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
  });

  it('a run after an aborted run starts clean', async () => {
    const model = mockModel([{ text: ['x'], holdBeforeFirst: true }, { text: ['second'] }]);
    const agent = createAgent({ model });
    const first = agent.run('one');
    await until(() => model.doStreamCalls.length === 1);
    agent.abort();
    expect((await first).outcome).toBe('aborted');
    const second = await agent.run('two');
    expect(second.outcome).toBe('completed');
    expect(second.stepCount).toBe(1);
    expect(second.text).toBe('second');
  });
});

describe('abort while a beforeToolCall hook is pending', () => {
  it('a tool whose run is aborted while its beforeToolCall hook is pending never runs', async () => {
    const log: string[] = [];
    const sideEffect = tool({ description: 'x', inputSchema: z.object({}), execute: async () => void log.push('executed') });
    const agent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'x', name: 'sideEffect', input: {} }] }]),
      tools: { sideEffect },
      hooks: {
        beforeToolCall: [
          () =>
            new Promise<undefined>((resolve) => {
              hookStarted();
              releaseHook = () => resolve(undefined);
            }),
        ],
      },
    });
    let hookStarted!: () => void;
    let releaseHook!: () => void;
    const started = new Promise<void>((resolve) => (hookStarted = resolve));
    const run = agent.run('go');
    await started;
    agent.abort('stop');
    const result = await run;
    // The hook answers only now, after the abort: the tool must still not run.
    releaseHook();
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.outcome).toBe('aborted');
    expect(log).toEqual([]);
    await expectValidHistory(result.messages);
  });

  it("a tool's abortSignal is the run's across steps, as the AI SDK gives one, and an abort reaches the call running on it", async () => {
    const signals: AbortSignal[] = [];
    let release: (() => void) | undefined;
    const probe = tool({
      inputSchema: z.object({ hold: z.boolean() }),
      execute: ({ hold }, { abortSignal }) => {
        signals.push(abortSignal!);
        return hold ? new Promise<string>((resolve) => (release = () => resolve('late'))) : 'done';
      },
    });
    const model = mockModel([
      { toolCalls: [{ id: 'c1', name: 'probe', input: { hold: false } }] },
      { toolCalls: [{ id: 'c2', name: 'probe', input: { hold: false } }] },
      { toolCalls: [{ id: 'c3', name: 'probe', input: { hold: true } }] },
      { text: ['never'] },
    ]);
    const agent = createAgent({ model, tools: { probe } });
    const run = agent.run('go');
    await until(() => release !== undefined);
    expect(signals).toHaveLength(3);
    expect(new Set(signals).size).toBe(1);
    expect(signals[0]!.aborted).toBe(false);
    agent.abort('stop');
    const result = await run;
    release!();

    expect(result.outcome).toBe('aborted');
    expect(signals[2]!.aborted).toBe(true);
    await expectValidHistory(result.messages);
  });
});
