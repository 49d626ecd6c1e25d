import { tool, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { z } from 'zod';
import { ApprovalError, createAgent, type AgentEvent } from '../src/index.js';
import { agentImplementations, agentMachine, bindImplementations } from 'loopchart/machine';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { recordEvents, recordStates } from './support/record.js';
import { addTool, sleepTool } from './support/tools.js';
import { nextEvent } from './support/next-event.js';

function countingTool(counts: Record<string, number>, name: string) {
  return tool({
    description: name,
    inputSchema: z.object({ path: z.string().optional() }),
    execute: async () => {
      counts[name] = (counts[name] ?? 0) + 1;
      return `${name} ok`;
    },
  });
}

const promptText = (messages: unknown) => JSON.stringify(messages);

describe('approvals', () => {
  it('rules: deny before ask before allow, globs and input predicates, default allow', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([
      {
        toolCalls: [
          { id: 'r', name: 'read_file', input: { path: 'a' } },
          { id: 'w', name: 'write_file', input: { path: 'a' } },
          { id: 's', name: 'write_file', input: { path: '.env' } },
          { id: 'l', name: 'list', input: {} },
        ],
      },
      { text: ['done'] },
    ]);
    const agent = createAgent({
      model,
      tools: { read_file: countingTool(counts, 'read_file'), write_file: countingTool(counts, 'write_file'), list: countingTool(counts, 'list') },
      approval: {
        deny: [{ tool: 'write_*', when: (input) => (input as { path?: string }).path === '.env' }],
        ask: ['write_*'],
        allow: ['read_*'],
      },
    });
    const events = recordEvents(agent);
    const run = agent.run('go');
    const request = await nextEvent(agent, 'approval-request');
    expect(request).toMatchObject({ toolCallId: 'w', toolName: 'write_file', reason: 'policy' });
    expect(agent.pendingApprovals).toEqual(['w']);
    agent.approve('w');
    const result = await run;

    expect(result.outcome).toBe('completed');
    expect(counts).toEqual({ read_file: 1, write_file: 1, list: 1 });
    expect(toolOutputs(result.messages).s).toEqual({ type: 'error-text', value: 'Tool call denied by the approval policy.' });
    expect(events.filter((event) => event.type === 'approval-request')).toHaveLength(1);
    await expectValidHistory(result.messages);
  });

  it('a function policy (async) decides each call', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'read_file', input: {} }, { id: 'b', name: 'list', input: {} }] }, { text: ['done'] }]);
    const agent = createAgent({
      model,
      tools: { read_file: countingTool(counts, 'read_file'), list: countingTool(counts, 'list') },
      approval: async (call) => (call.toolName === 'list' ? 'deny' : 'allow'),
    });
    const result = await agent.run('go');
    expect(counts).toEqual({ read_file: 1 });
    expect(toolOutputs(result.messages).b).toEqual({ type: 'error-text', value: 'Tool call denied by the approval policy.' });
  });

  it('a policy that throws denies the call (fail closed)', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'list', input: {} }] }, { text: ['done'] }]);
    const agent = createAgent({
      model,
      tools: { list: countingTool(counts, 'list') },
      approval: () => {
        throw new Error('policy offline');
      },
    });
    const result = await agent.run('go');
    expect(counts).toEqual({});
    expect((toolOutputs(result.messages).a as { value: string }).value).toBe('Tool call denied by the approval policy: the approval policy failed (policy offline)');
  });

  it('two calls of one step wait together; the approved one runs, the denied one tells the model why', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'one', name: 'list', input: {} }, { id: 'two', name: 'list', input: { path: 'x' } }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { list: countingTool(counts, 'list') }, approval: { ask: ['*'] } });
    const states = recordStates(agent);
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    expect(agent.pendingApprovals).toEqual(['one', 'two']);
    agent.deny('two', 'not that directory');
    expect(agent.pendingApprovals).toEqual(['one']);
    expect(states.at(-1)).toBe('running.awaitingApproval');
    agent.approve('one');
    const result = await run;

    expect(counts).toEqual({ list: 1 });
    expect(toolOutputs(result.messages)).toEqual({
      one: { type: 'text', value: 'list ok' },
      two: { type: 'error-text', value: 'The user denied this tool call: not that directory' },
    });
    expect(promptText(model.doStreamCalls[1]!.prompt)).toContain('not that directory');
    await expectValidHistory(result.messages);
  });

  it('steering while calls wait for approval ends the wait at once: no later approval is accepted and then ignored', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'one', name: 'list', input: {} }, { id: 'two', name: 'list', input: { path: 'x' } }] }, { text: ['changing course'] }]);
    const agent = createAgent({ model, tools: { list: countingTool(counts, 'list') }, approval: { ask: ['*'] } });
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    agent.approve('one');

    agent.steer('Stop, look at the tests instead.');

    expect(agent.pendingApprovals).toEqual([]);
    expect(() => agent.approve('two')).toThrow(ApprovalError);
    const result = await run;
    expect(result.outcome).toBe('completed');
    expect(counts).toEqual({});
    expect(toolOutputs(result.messages)).toEqual({
      one: { type: 'error-text', value: 'Tool call skipped: a new user message arrived before it ran.' },
      two: { type: 'error-text', value: 'Tool call skipped: a new user message arrived before it ran.' },
    });
    expect(promptText(model.doStreamCalls[1]!.prompt)).toContain('look at the tests instead');
    await expectValidHistory(result.messages);
  });

  it("onDeny: 'stop' ends the run denied with a valid history and runs nothing", async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'list', input: {} }, { id: 'b', name: 'list', input: {} }] }]);
    const agent = createAgent({ model, tools: { list: countingTool(counts, 'list') }, approval: { ask: ['list'] }, onDeny: 'stop' });
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    agent.approve('a');
    agent.deny('b');
    const result = await run;
    expect(result.outcome).toBe('denied');
    expect(counts).toEqual({});
    expect(toolOutputs(result.messages)).toEqual({
      a: { type: 'error-text', value: 'Tool call not executed: the run stopped because a tool call was denied.' },
      b: { type: 'error-text', value: 'The user denied this tool call.' },
    });
    await expectValidHistory(result.messages);
  });

  it('approvalTimeoutMs denies what still waits', async () => {
    const counts: Record<string, number> = {};
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'list', input: {} }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { list: countingTool(counts, 'list') }, approval: { ask: ['*'] }, approvalTimeoutMs: 40 });
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');
    expect(counts).toEqual({});
    expect(toolOutputs(result.messages).a).toEqual({ type: 'error-text', value: 'The user denied this tool call: no answer within 40 ms (approvalTimeoutMs)' });
  });

  it('abort while awaiting approval ends aborted and answers every waiting call as interrupted', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'list', input: {} }, { id: 'b', name: 'list', input: {} }] }]);
    const agent = createAgent({ model, tools: { list: countingTool({}, 'list') }, approval: { ask: ['*'] } });
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    agent.abort('user left');
    const result = await run;
    expect(result.outcome).toBe('aborted');
    expect(Object.values(toolOutputs(result.messages))).toEqual([
      { type: 'error-text', value: 'Tool call interrupted: the run was aborted (user left).' },
      { type: 'error-text', value: 'Tool call interrupted: the run was aborted (user left).' },
    ]);
    await expectValidHistory(result.messages);
  });

  it('answering an unknown or already answered id is a clear error', async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'list', input: {} }, { id: 'b', name: 'list', input: {} }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { list: countingTool({}, 'list') }, approval: { ask: ['*'] } });
    expect(() => agent.approve('a')).toThrow(/no tool call is waiting for approval/);
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    expect(() => agent.approve('nope')).toThrow(ApprovalError);
    agent.approve('a');
    expect(() => agent.deny('a')).toThrow(/"a" is not waiting for approval \(unknown or already answered; waiting: b\)/);
    agent.approve('b');
    expect((await run).outcome).toBe('completed');
  });
});

describe('doom loop with ask', () => {
  const repeated = { name: 'add', input: { a: 1, b: 1 } };

  it('asks about the repeated call; approving lets it run and the loop goes on', async () => {
    const model = mockModel([{ toolCalls: [repeated] }, { toolCalls: [repeated] }, { toolCalls: [repeated] }, { text: ['2'] }]);
    const agent = createAgent({ model, tools: { add: addTool }, doomLoop: { threshold: 3, action: 'ask' } });
    const run = agent.run('go');
    const request = await nextEvent(agent, 'approval-request');
    expect(request.reason).toBe('doom-loop');
    agent.approve(request.toolCallId);
    const result = await run;
    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(3);
  });

  it('denying ends the run with outcome doom-loop', async () => {
    const model = mockModel([{ toolCalls: [repeated] }, { toolCalls: [repeated] }, { toolCalls: [repeated] }]);
    const agent = createAgent({ model, tools: { add: addTool }, doomLoop: { threshold: 3, action: 'ask' } });
    const run = agent.run('go');
    const request = await nextEvent(agent, 'approval-request');
    agent.deny(request.toolCallId, 'you are looping');
    const result = await run;
    expect(result.outcome).toBe('doom-loop');
    expect(result.toolCallCount).toBe(2);
    expect(toolOutputs(result.messages)[request.toolCallId]).toEqual({ type: 'error-text', value: 'The user denied this tool call: you are looping' });
    await expectValidHistory(result.messages);
  });
});

describe('steering and follow-ups', () => {
  it('steering during the first of three sequential tools skips calls 2 and 3 and reaches the next prompt', async () => {
    const log: string[] = [];
    const model = mockModel([
      {
        toolCalls: [
          { id: 'one', name: 'sleep', input: { ms: 40, label: 'one' } },
          { id: 'two', name: 'sleep', input: { ms: 1, label: 'two' } },
          { id: 'three', name: 'sleep', input: { ms: 1, label: 'three' } },
        ],
      },
      { text: ['changing course'] },
    ]);
    // The first call runs until the test lets it finish, so the steer lands while it runs however busy the machine is.
    let releaseOne!: () => void;
    const oneReleased = new Promise<void>((resolve) => (releaseOne = resolve));
    let oneStarted!: () => void;
    const oneRunning = new Promise<void>((resolve) => (oneStarted = resolve));
    const gated = tool({
      description: 'Sleeps until released',
      inputSchema: z.object({ ms: z.number(), label: z.string() }),
      execute: async ({ label }) => {
        log.push(`start ${label}`);
        if (label === 'one') {
          oneStarted();
          await oneReleased;
        }
        log.push(`end ${label}`);
        return `slept ${label}`;
      },
    });
    const agent = createAgent({ model, tools: { sleep: gated }, toolExecution: 'sequential' });
    const events = recordEvents(agent);
    const run = agent.run('go');
    await oneRunning;
    agent.steer('Stop, look at the tests instead.');
    releaseOne();
    const result = await run;

    expect(log).toEqual(['start one', 'end one']);
    expect(toolOutputs(result.messages)).toEqual({
      one: { type: 'text', value: 'slept one' },
      two: { type: 'error-text', value: 'Tool call skipped: a new user message arrived before it ran.' },
      three: { type: 'error-text', value: 'Tool call skipped: a new user message arrived before it ran.' },
    });
    const secondPrompt = model.doStreamCalls[1]!.prompt;
    expect(secondPrompt.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Stop, look at the tests instead.' }] });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    const reported = events.flatMap((event) => (event.type === 'message' ? [event.message] : []));
    expect(reported).toEqual(result.messages);
    await expectValidHistory(result.messages);
  });

  it("steeringMode 'all' delivers two queued messages at once", async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'sleep', input: { ms: 30, label: 'a' } }] }, { text: ['ok'] }]);
    const agent = createAgent({ model, tools: { sleep: sleepTool([]) }, steeringMode: 'all' });
    const run = agent.run('go');
    await nextEvent(agent, 'tool-call');
    agent.steer('first');
    agent.steer('second');
    const result = await run;
    const tail = model.doStreamCalls[1]!.prompt.slice(-2);
    expect(tail).toMatchObject([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
    ]);
    expect(result.stepCount).toBe(2);
    expect(agent.actor.getSnapshot().context.queues.steering).toEqual([]);
  });

  it("steeringMode 'one-at-a-time' delivers one per step boundary", async () => {
    const model = mockModel([{ toolCalls: [{ id: 'a', name: 'sleep', input: { ms: 30, label: 'a' } }] }, { text: ['ok'] }, { text: ['ok again'] }]);
    const agent = createAgent({ model, tools: { sleep: sleepTool([]) } });
    const run = agent.run('go');
    await nextEvent(agent, 'tool-call');
    agent.steer('first');
    agent.steer('second');
    const result = await run;
    expect(result.stepCount).toBe(3);
    expect(promptText(model.doStreamCalls[1]!.prompt)).toContain('first');
    expect(promptText(model.doStreamCalls[1]!.prompt)).not.toContain('second');
    expect(model.doStreamCalls[2]!.prompt.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'second' }] });
  });

  it('a follow-up extends the run when it would otherwise complete', async () => {
    const model = mockModel([{ text: ['first answer'], holdBeforeFirst: false }, { text: ['second answer'] }]);
    const agent = createAgent({ model });
    const events = recordEvents(agent);
    const run = agent.run('one');
    agent.followUp('and another thing');
    const result = await run;
    expect(result.outcome).toBe('completed');
    expect(result.stepCount).toBe(2);
    expect(result.text).toBe('second answer');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(events.filter((event) => event.type === 'run-end')).toHaveLength(1);
  });

  it('steer and followUp while idle wait for the next run', async () => {
    const model = mockModel([{ text: ['answer'] }, { text: ['follow-up answer'] }]);
    const agent = createAgent({ model });
    agent.steer('context first');
    agent.followUp('then this');
    const result = await agent.run('main question');
    const contents = result.messages.map((message: ModelMessage) =>
      typeof message.content === 'string' ? message.content : (message.content[0] as { text?: string }).text,
    );
    expect(contents).toEqual(['main question', 'context first', 'answer', 'then this', 'follow-up answer']);
  });

  it('run() during a run rejects and points at steer() and followUp()', async () => {
    const model = mockModel([{ text: ['slow'], holdBeforeFirst: true }]);
    const agent = createAgent({ model });
    const run = agent.run('one');
    await expect(agent.run('two')).rejects.toThrow(/use steer\(\) or followUp\(\)/);
    agent.abort();
    await expectValidHistory((await run).messages);
  });
});

describe('approval across a restart', () => {
  it('a snapshot taken while awaiting approval, restored from JSON into a new actor, completes with the tool run exactly once', async () => {
    let executions = 0;
    const deploy = tool({ description: 'deploy', inputSchema: z.object({}), execute: async () => `deployed ${++executions}` });
    const turns = [{ toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] }, { text: ['deployed it'] }];
    const implementationsFor = (model: ReturnType<typeof mockModel>) => agentImplementations({ model, tools: { deploy }, approval: { ask: ['deploy'] } });
    const input = { config: { hasApprovalPolicy: true } };

    const first = createActor(agentMachine, { input });
    bindImplementations(first, implementationsFor(mockModel(turns)));
    first.start();
    const asked = new Promise<void>((resolve) => first.on('approval-request', () => resolve()));
    first.send({ type: 'agent.prompt', messages: [{ role: 'user', content: 'ship it' }] });
    await asked;
    expect(first.getSnapshot().matches({ running: 'awaitingApproval' })).toBe(true);
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as unknown;
    first.stop();

    const secondModel = mockModel(turns.slice(1));
    const second = createActor(agentMachine, { input, snapshot: persisted as never });
    bindImplementations(second, implementationsFor(secondModel));
    const ended = new Promise<Extract<AgentEvent, { type: 'run-end' }>>((resolve) => second.on('run-end', resolve));
    second.start();
    expect(second.getSnapshot().matches({ running: 'awaitingApproval' })).toBe(true);
    second.send({ type: 'agent.approve', toolCallId: 'd1' });
    const { result } = await ended;

    expect(result.outcome).toBe('completed');
    expect(executions).toBe(1);
    expect(toolOutputs(result.messages).d1).toEqual({ type: 'text', value: 'deployed 1' });
    await expectValidHistory(result.messages);
  });
});
