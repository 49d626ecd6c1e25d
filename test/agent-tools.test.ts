import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../src/index.js';
import { expectValidHistory, toolResultCounts } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents } from './support/record.js';
import { addTool, sleepTool } from './support/tools.js';

const threeCalls = [
  { id: 'slow', name: 'sleep', input: { ms: 40, label: 'slow' } },
  { id: 'mid', name: 'sleep', input: { ms: 20, label: 'mid' } },
  { id: 'fast', name: 'sleep', input: { ms: 1, label: 'fast' } },
];

function toolResultIds(messages: { role: string; content: unknown }[]): string[] {
  return messages
    .filter((message) => message.role === 'tool')
    .flatMap((message) => (message.content as Array<{ toolCallId: string }>).map((part) => part.toolCallId));
}

describe('tool execution', () => {
  it('parallel: starts every call at once and records results in call order', async () => {
    const log: string[] = [];
    const agent = createAgent({ model: mockModel([{ toolCalls: threeCalls }, { text: ['done'] }]), tools: { sleep: sleepTool(log) } });
    const events = recordEvents(agent);
    const result = await agent.run('go');

    expect(log.slice(0, 3)).toEqual(['start slow', 'start mid', 'start fast']);
    expect(events.flatMap((event) => (event.type === 'tool-result' ? [event.toolCallId] : []))).toEqual(['fast', 'mid', 'slow']);
    expect(toolResultIds(result.messages)).toEqual(['slow', 'mid', 'fast']);
    expect(result.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('sequential: runs one call at a time, in call order', async () => {
    const log: string[] = [];
    const agent = createAgent({
      model: mockModel([{ toolCalls: threeCalls }, { text: ['done'] }]),
      tools: { sleep: sleepTool(log) },
      toolExecution: 'sequential',
    });
    const result = await agent.run('go');
    expect(log).toEqual(['start slow', 'end slow', 'start mid', 'end mid', 'start fast', 'end fast']);
    expect(toolResultIds(result.messages)).toEqual(['slow', 'mid', 'fast']);
  });

  it('passes the abort signal, the tool call id and the history to execute', async () => {
    const seen: Array<{ toolCallId: string; messages: number; signal: boolean }> = [];
    const probe = tool({
      description: 'probe',
      inputSchema: z.object({}),
      execute: async (_input, options) => {
        seen.push({ toolCallId: options.toolCallId, messages: options.messages.length, signal: options.abortSignal instanceof AbortSignal });
        return 'ok';
      },
    });
    await createAgent({ model: mockModel([{ toolCalls: [{ id: 'p1', name: 'probe', input: {} }] }, { text: ['done'] }]), tools: { probe } }).run('go');
    expect(seen).toEqual([{ toolCallId: 'p1', messages: 2, signal: true }]);
  });

  it('reports each output of a streaming tool as tool-update and keeps the last as the result', async () => {
    const counter = tool({
      description: 'counts',
      inputSchema: z.object({}),
      async *execute() {
        yield 'one';
        yield 'two';
        yield 'three';
      },
    });
    const agent = createAgent({ model: mockModel([{ toolCalls: [{ id: 'k', name: 'counter', input: {} }] }, { text: ['done'] }]), tools: { counter } });
    const events = recordEvents(agent);
    await agent.run('go');
    expect(events.flatMap((event) => (event.type === 'tool-update' ? [event.output] : []))).toEqual(['one', 'two', 'three']);
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ output: 'three', isError: false });
  });

  it('applies the tool’s toModelOutput to what the model sees', async () => {
    const shout = tool({
      description: 'shout',
      inputSchema: z.object({}),
      execute: async () => ({ secret: 'raw', visible: 'HELLO' }),
      toModelOutput: ({ output }) => ({ type: 'text', value: output.visible }),
    });
    const model = mockModel([{ toolCalls: [{ id: 's', name: 'shout', input: {} }] }, { text: ['done'] }]);
    const agent = createAgent({ model, tools: { shout } });
    const events = recordEvents(agent);
    await agent.run('go');
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain('"HELLO"');
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).not.toContain('raw');
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ output: { secret: 'raw', visible: 'HELLO' } });
  });
});

describe('duplicate tool-call ids in one step', () => {
  it('are made unique, so each call runs and has exactly one result in a valid history', async () => {
    const model = mockModel([
      { toolCalls: [{ id: 'call_0', name: 'add', input: { a: 1, b: 2 } }, { id: 'call_0', name: 'add', input: { a: 3, b: 4 } }] },
      { text: ['3 and 7'] },
    ]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const result = await agent.run('add twice');

    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(2);
    expect(toolResultCounts(result.messages)).toEqual(new Map([['call_0', 1], ['call_0-2', 1]]));
    await expectValidHistory(result.messages);
  });
});

describe('a tool-call id an earlier step used', () => {
  it('gets the history length as a suffix, so ids stay unique across the session (servers that number calls per response send call_0 every step)', async () => {
    const call = (a: number) => ({ toolCalls: [{ id: 'call_0', name: 'add', input: { a, b: 1 } }] });
    const model = mockModel([call(1), call(2), call(3), { text: ['done'] }]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const events = recordEvents(agent);
    const result = await agent.run('add thrice');

    expect(result.outcome).toBe('completed');
    expect(toolResultCounts(result.messages)).toEqual(new Map([['call_0', 1], ['call_0-3', 1], ['call_0-5', 1]]));
    expect(events.filter((event) => event.type === 'tool-call').map((event) => event.toolCallId)).toEqual(['call_0', 'call_0-3', 'call_0-5']);
    await expectValidHistory(result.messages);
    // The next run, and an agent given this history, go on the same way.
    const next = createAgent({ model: mockModel([call(4), { text: ['done'] }]), tools: { add: addTool }, messages: result.messages });
    const more = await next.run('once more');
    expect([...toolResultCounts(more.messages).keys()]).toEqual(['call_0', 'call_0-3', 'call_0-5', 'call_0-9']);
  });
});

describe('a tool call without an id', () => {
  it('gets one, so that its result answers it alone', async () => {
    const model = mockModel([{ toolCalls: [{ id: '', name: 'add', input: { a: 1, b: 2 } }, { id: '', name: 'add', input: { a: 3, b: 4 } }] }, { text: ['3 and 7'] }]);
    const result = await createAgent({ model, tools: { add: addTool } }).run('add twice');
    expect(result.outcome).toBe('completed');
    expect(toolResultCounts(result.messages)).toEqual(new Map([['call_1', 1], ['call_1-2', 1]]));
    await expectValidHistory(result.messages);
  });
});

describe('many tool calls in one step', () => {
  it('runs at most maxToolCallsPerStep of them; the rest get a result telling the model to make fewer, and the run goes on', async () => {
    const calls = Array.from({ length: 300 }, (_, index) => ({ id: `c${index}`, name: 'add', input: { a: index, b: 1 } }));
    const model = mockModel([{ toolCalls: calls }, { text: ['done'] }]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const result = await agent.run('add a lot');

    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(128);
    const counts = toolResultCounts(result.messages);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(counts.size).toBe(300);
    expect(JSON.stringify(result.messages)).toContain('this step made 300 tool calls and at most 128 run per step (maxToolCallsPerStep)');
    await expectValidHistory(result.messages);
  });

  it('a run’s calls all run in one tool runner actor, so no call or step pays for an actor of its own', async () => {
    const calls = Array.from({ length: 500 }, (_, index) => ({ id: `c${index}`, name: 'add', input: { a: index, b: 1 } }));
    const model = mockModel([{ toolCalls: calls }, { toolCalls: calls.slice(0, 3).map((call) => ({ ...call, id: `again-${call.id}` })) }, { text: ['done'] }]);
    const spawned: string[] = [];
    const agent = createAgent({
      model,
      tools: { add: addTool },
      maxToolCallsPerStep: 500,
      inspect: (event) => {
        const { id } = event.actorRef as unknown as { id: string };
        if (event.type === '@xstate.actor' && id !== 'agent' && id !== 'llm') spawned.push(id);
      },
    });
    const result = await agent.run('add a lot');

    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(503);
    // Two tool steps, one runner: it lives as long as the run.
    expect(spawned.filter((id) => id === 'tools')).toHaveLength(1);
    expect(spawned.filter((id) => id.startsWith('tool.'))).toEqual([]);
    await expectValidHistory(result.messages);
  });

  it('maxToolCallsPerStep is an option, validated', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'add', input: { a: 1, b: 1 } }, { id: 'b', name: 'add', input: { a: 2, b: 2 } }] }, { text: ['ok'] }]);
    const result = await createAgent({ model, tools: { add: addTool }, maxToolCallsPerStep: 1 }).run('go');
    expect(result.toolCallCount).toBe(1);
    expect(() => createAgent({ model, maxToolCallsPerStep: 0 })).toThrow(/maxToolCallsPerStep/);
  });
});
