import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createAgent, type AgentEvent, type AgentOptions } from '../src/index.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents } from './support/record.js';
import { addTool } from './support/tools.js';

function subagentEvents(events: AgentEvent[]): Array<Extract<AgentEvent, { type: 'subagent' }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: 'subagent' }> => event.type === 'subagent');
}

describe('sub-agents', () => {
  it('the parent completes with the child’s answer as a tool result, and the child’s events arrive tagged with its path', async () => {
    const childModel = mockModel([{ toolCalls: [{ id: 'child-add', name: 'add', input: { a: 20, b: 22 } }] }, { text: ['The answer is 42.'] }]);
    const researcher = agentTool({ model: childModel, tools: { add: addTool } }, { description: 'Does arithmetic' });
    const parentModel = mockModel([
      { toolCalls: [{ id: 'ask-child', name: 'researcher', input: { task: 'What is 20 + 22?' } }] },
      { text: ['My helper says 42.'] },
    ]);
    const parent = createAgent({ model: parentModel, tools: { researcher } });
    const events = recordEvents(parent);
    const result = await parent.run('Delegate the sum.');

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('My helper says 42.');
    expect(toolOutputs(result.messages)['ask-child']).toEqual({ type: 'json', value: { outcome: 'completed', text: 'The answer is 42.' } });
    expect(childModel.doStreamCalls[0]!.prompt.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'What is 20 + 22?' }] });
    const fromChild = subagentEvents(events);
    expect(fromChild.every((event) => event.path[0] === 'ask-child' && event.toolName === 'researcher')).toBe(true);
    expect(fromChild.map((event) => event.event.type)).toEqual(expect.arrayContaining(['run-start', 'tool-call', 'tool-result', 'run-end']));
    const childEnd = fromChild.find((event) => event.event.type === 'run-end')!.event as Extract<AgentEvent, { type: 'run-end' }>;
    await expectValidHistory(childEnd.result.messages);
    // The child's messages are the child's: none of them reach the parent's history.
    expect(JSON.stringify(result.messages)).not.toContain('child-add');
  });

  it('abort during the child aborts both, with valid histories', async () => {
    const childModel = mockModel([{ text: ['thinking'], holdAfter: 3 }]);
    const worker = agentTool({ model: childModel }, { description: 'Works slowly' });
    const parent = createAgent({ model: mockModel([{ toolCalls: [{ id: 'w', name: 'worker', input: { task: 'work' } }] }]), tools: { worker } });
    const events = recordEvents(parent);
    const run = parent.run('go');
    await new Promise<void>((resolve) => {
      const subscription = parent.events$.subscribe((event) => {
        if (event.type === 'subagent' && event.event.type === 'text-delta') {
          subscription.unsubscribe();
          resolve();
        }
      });
    });
    parent.abort('user stopped everything');
    const result = await run;

    expect(result.outcome).toBe('aborted');
    await expectValidHistory(result.messages);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const childEnd = subagentEvents(events).find((event) => event.event.type === 'run-end');
    expect(childModel.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    if (childEnd) {
      const { result: childResult } = childEnd.event as Extract<AgentEvent, { type: 'run-end' }>;
      expect(childResult.outcome).toBe('aborted');
      await expectValidHistory(childResult.messages);
    }
  });

  it('refuses to nest deeper than maxDepth, with an error result the model sees', async () => {
    // Every level's model delegates again; the chain must stop at maxDepth.
    const delegating = (): AgentOptions => ({
      model: mockModel([{ toolCalls: [{ id: 'deeper', name: 'delegate', input: { task: 'go deeper' } }] }, { text: ['done at this level'] }]),
      tools: { delegate: agentTool({ model: mockModel([]) }, { description: 'placeholder' }) },
    });
    const level = (depthLeft: number): AgentOptions => {
      const options = delegating();
      options.tools = { delegate: agentTool(depthLeft > 0 ? level(depthLeft - 1) : delegating(), { description: 'delegates', maxDepth: 2 }) };
      return options;
    };
    const top = createAgent(level(3));
    const events = recordEvents(top);
    const result = await top.run('start');
    expect(result.outcome).toBe('completed');
    const refused = subagentEvents(events).find(
      (event) => event.event.type === 'tool-result' && event.event.isError && String(event.event.output).includes('maxDepth'),
    );
    expect(refused?.path).toHaveLength(2);
    expect(String((refused?.event as { output: unknown }).output)).toBe(
      'Sub-agent not started: sub-agents may nest 2 deep (maxDepth) and this one would be at depth 3.',
    );
  });

  it('the child agent’s actor is a child of the tool runner of the calling step, and is stopped when done', async () => {
    const parents: Array<string | undefined> = [];
    const children: Array<{ getSnapshot(): { status: string } }> = [];
    const child = agentTool({ model: mockModel([{ text: ['hi'] }]) }, { description: 'says hi' });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'c', name: 'child', input: { task: 'greet' } }] }, { text: ['ok'] }]),
      tools: { child },
      inspect: (event) => {
        const actor = event.actorRef as unknown as { _parent?: { id: string }; getSnapshot(): { status: string } };
        if (event.type === '@xstate.actor' && actor._parent?.id === 'tools') {
          parents.push(actor._parent.id);
          children.push(actor);
        }
      },
    });
    await parent.run('go');
    expect(parents).toEqual(['tools']);
    expect(children).toHaveLength(1);
    // The child agent's session chart, disposed once its run ended: it reaches its final state.
    await expect.poll(() => children.map((actor) => actor.getSnapshot().status), { timeout: 10_000 }).toEqual(children.map(() => 'done'));
  });

  it('a tool that calls a sub-agent tool with a copy of its options keeps the call’s scope: the child’s events reach the caller', async () => {
    const inner = agentTool({ model: mockModel([{ text: ['inner answer'] }]) }, { description: 'answers' });
    const wrapper = tool({
      description: 'asks the inner agent',
      inputSchema: z.object({ task: z.string() }),
      execute: (input, options) => inner.execute!(input, { ...options }),
    });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'wrapped', name: 'wrapper', input: { task: 'hi' } }] }, { text: ['ok'] }]),
      tools: { wrapper },
    });
    const events = recordEvents(parent);
    const result = await parent.run('go');
    expect(toolOutputs(result.messages)['wrapped']).toEqual({ type: 'json', value: { outcome: 'completed', text: 'inner answer' } });
    const fromChild = subagentEvents(events);
    expect(fromChild.map((event) => event.event.type)).toEqual(expect.arrayContaining(['run-start', 'text-delta', 'run-end']));
    expect(fromChild.every((event) => event.path.join('/') === 'wrapped' && event.toolName === 'wrapper')).toBe(true);
  });
});

describe('a tool that wraps one existing agent', () => {
  it('two parallel calls to a tool wrapping one existing agent run one after the other', async () => {
    const helper = createAgent({ model: mockModel([{ text: ['first answer'] }, { text: ['second answer'] }]) });
    const ask = agentTool(helper, { description: 'asks the helper' });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'a', name: 'ask', input: { task: 'one' } }, { id: 'b', name: 'ask', input: { task: 'two' } }] }, { text: ['done'] }]),
      tools: { ask },
    });
    const result = await parent.run('go');
    expect(toolOutputs(result.messages)).toEqual({
      a: { type: 'json', value: { outcome: 'completed', text: 'first answer' } },
      b: { type: 'json', value: { outcome: 'completed', text: 'second answer' } },
    });
  });
});
