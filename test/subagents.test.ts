import { tool } from 'ai';
import { describe, expect, it, vi, type MockInstance } from 'vitest';
import { waitFor, type AnyActor, type InspectionEvent } from 'xstate';
import { z } from 'zod';
import { AgentOptionsError, agentTool, createAgent, type Agent, type AgentEvent, type AgentOptions } from '../src/index.js';
import { unanswerableApprovalReason } from '../src/subagents/agent-tool.js';
import { inspectedActor, machineOf, parentOf } from '../src/machine/xstate-internals.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents } from './support/record.js';
import { addTool } from './support/tools.js';

/** The session actors an agent's inspector sees created: its own (the root) and its sub-agents'. */
function sessionActors(): { root(): AnyActor | undefined; subagents(): AnyActor[]; observe(event: InspectionEvent): void } {
  const sessions: AnyActor[] = [];
  return {
    root: () => sessions.find((actor) => parentOf(actor) === undefined),
    subagents: () => sessions.filter((actor) => parentOf(actor) !== undefined),
    observe(event) {
      if (event.type !== '@xstate.actor') return;
      const actor = inspectedActor(event.actorRef);
      if (actor && machineOf(actor)?.id === 'session') sessions.push(actor);
    },
  };
}

/** Resolves once the agent's sub-agent has begun writing its answer. */
function untilChildWrites(agent: Agent): Promise<void> {
  return new Promise<void>((resolve) => {
    const subscription = agent.events$.subscribe((event) => {
      if (event.type === 'subagent' && event.event.type === 'text-delta') {
        subscription.unsubscribe();
        resolve();
      }
    });
  });
}

/** XState's warnings of an event sent to a stopped actor, among those `console.warn` was given. */
function stoppedActorWarnings(warn: MockInstance<typeof console.warn>): string[] {
  return warn.mock.calls.map((call) => String(call[0])).filter((message) => message.includes('stopped actor'));
}

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
    // The child's trace is its own chart's: it ran a tool step and an answer.
    expect(childEnd.result.trace?.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(childEnd.result.trace?.transitions.filter((transition) => transition.to === 'running.toolExec')).toHaveLength(1);
    // The child's messages are the child's: none of them reach the parent's history.
    expect(JSON.stringify(result.messages)).not.toContain('child-add');
  });

  it("a sub-agent's own inspect option hears its own actors (its session, its run chart and their children), none of the caller's", async () => {
    const childEvents: InspectionEvent[] = [];
    const childModel = mockModel([{ toolCalls: [{ id: 'child-add', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]);
    const helper = agentTool({ model: childModel, tools: { add: addTool }, inspect: (event) => childEvents.push(event) }, { description: 'Adds' });
    const parentSessions = sessionActors();
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'ask', name: 'helper', input: { task: '1 + 2?' } }] }, { text: ['3.'] }]),
      tools: { helper },
      inspect: parentSessions.observe,
    });
    const result = await parent.run('Delegate.');

    expect(result.outcome).toBe('completed');
    const childSession = parentSessions.subagents()[0]!;
    const created = childEvents.filter((event) => event.type === '@xstate.actor').map((event) => inspectedActor(event.actorRef)!);
    expect(created[0]).toBe(childSession);
    const belongsToChild = (actor: AnyActor | undefined): boolean => actor !== undefined && (actor === childSession || belongsToChild(parentOf(actor) as AnyActor | undefined));
    expect(childEvents.length).toBeGreaterThan(0);
    expect(childEvents.every((event) => belongsToChild(inspectedActor(event.actorRef)))).toBe(true);
    expect(created.map((actor) => actor.id)).toEqual(expect.arrayContaining(['agent', 'llm', 'tools']));
    const childTransitions = childEvents.filter((event) => event.type === '@xstate.microstep' && inspectedActor(event.actorRef)?.id === 'agent');
    expect(childTransitions.length).toBeGreaterThan(0);
  });

  it('abort during the child aborts both, with valid histories, and the child ends without a word to the stopped tool runner', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const childModel = mockModel([{ text: ['thinking'], holdAfter: 3 }]);
      const worker = agentTool({ model: childModel }, { description: 'Works slowly' });
      const sessions = sessionActors();
      const parent = createAgent({
        model: mockModel([{ toolCalls: [{ id: 'w', name: 'worker', input: { task: 'work' } }] }]),
        tools: { worker },
        inspect: sessions.observe,
      });
      const events = recordEvents(parent);
      const run = parent.run('go');
      await untilChildWrites(parent);
      parent.abort('user stopped everything');
      const result = await run;

      expect(result.outcome).toBe('aborted');
      await expectValidHistory(result.messages);
      expect(childModel.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
      // The child's session is disposed once its aborted run has ended, after the parent's run ended.
      expect(sessions.subagents()).toHaveLength(1);
      await waitFor(sessions.subagents()[0]!, (snapshot) => snapshot.status === 'done');
      const childEnd = subagentEvents(events).find((event) => event.event.type === 'run-end')!;
      const { result: childResult } = childEnd.event as Extract<AgentEvent, { type: 'run-end' }>;
      expect(childResult.outcome).toBe('aborted');
      await expectValidHistory(childResult.messages);
      // XState warns of an event sent to a stopped actor: the child's end must not go to the runner the abort stopped.
      expect(stoppedActorWarnings(warn)).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('disposing the caller during the child aborts the child, and is done only once the child is disposed', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const worker = agentTool({ model: mockModel([{ text: ['thinking'], holdAfter: 3 }]) }, { description: 'Works slowly' });
      const sessions = sessionActors();
      const parent = createAgent({ model: mockModel([{ toolCalls: [{ id: 'w', name: 'worker', input: { task: 'work' } }] }]), tools: { worker }, inspect: sessions.observe });
      const run = parent.run('go');
      await untilChildWrites(parent);
      await parent.dispose();

      expect((await run).outcome).toBe('aborted');
      expect(sessions.subagents().map((actor) => (actor.getSnapshot() as { status: string }).status)).toEqual(['done']);
      expect(stoppedActorWarnings(warn)).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('a sub-agent made from options that asks approval is denied at once with a reason, instead of holding the caller for ever', async () => {
    const childModel = mockModel([{ toolCalls: [{ id: 'child-add', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['I was not allowed to add.'] }]);
    const helper = agentTool({ model: childModel, tools: { add: addTool }, approval: { ask: ['add'] } }, { description: 'Adds' });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'ask', name: 'helper', input: { task: 'add 1 and 2' } }] }, { text: ['done'] }]),
      tools: { helper },
    });
    const events = recordEvents(parent);
    const result = await parent.run('go');

    expect(result.outcome).toBe('completed');
    expect(toolOutputs(result.messages)['ask']).toEqual({ type: 'json', value: { outcome: 'completed', text: 'I was not allowed to add.' } });
    // The child's model read why, and the caller's events$ heard the request and its denial.
    expect(JSON.stringify(childModel.doStreamCalls[1]!.prompt)).toContain(unanswerableApprovalReason('add'));
    expect(subagentEvents(events).map((event) => event.event.type)).toContain('approval-request');
    const denied = subagentEvents(events).find((event) => event.event.type === 'tool-result')?.event as Extract<AgentEvent, { type: 'tool-result' }>;
    expect(JSON.stringify(denied.output)).toContain('nobody can answer a sub-agent');
  });

  it('refuses child options and a maxDepth it cannot honour when the tool is made, not when the model first calls it', () => {
    expect(() => agentTool({ model: mockModel([]), instrucions: 'Answer briefly.' } as never, { description: 'Helps' })).toThrow(AgentOptionsError);
    expect(() => agentTool({ model: mockModel([]), maxSteps: -1 }, { description: 'Helps' })).toThrow(/maxSteps/);
    for (const maxDepth of [Number.NaN, 1.5, 0, -1, '3']) {
      expect(() => agentTool({ model: mockModel([]) }, { description: 'Helps', maxDepth: maxDepth as number })).toThrow(
        `agentTool: maxDepth must be a whole number 1 or more (how deep sub-agents may nest), not ${typeof maxDepth === 'string' ? '"3"' : String(maxDepth)}`,
      );
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

  it('the child agent’s actor is a child of the calling agent’s session, and reaches its final state when done', async () => {
    const sessions = sessionActors();
    const child = agentTool({ model: mockModel([{ text: ['hi'] }]) }, { description: 'says hi' });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'c', name: 'child', input: { task: 'greet' } }] }, { text: ['ok'] }]),
      tools: { child },
      inspect: sessions.observe,
    });
    await parent.run('go');
    expect(sessions.subagents()).toHaveLength(1);
    const [childSession] = sessions.subagents();
    expect(parentOf(childSession!)).toBe(sessions.root());
    // The child agent's session chart, disposed once its run ended: it reaches its final state.
    await waitFor(childSession!, (snapshot) => snapshot.status === 'done');
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
