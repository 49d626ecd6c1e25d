import { tool, type ToolLoopAgentSettings } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentOptionsError, createAgent } from '../src/index.js';
import { toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { nextEvent } from './support/next-event.js';

function payTool(paid: number[], needsApproval?: boolean | ((input: { amount: number }) => Promise<boolean>)) {
  return tool({
    description: 'Pays an amount',
    inputSchema: z.object({ amount: z.number() }),
    ...(needsApproval !== undefined ? { needsApproval } : {}),
    execute: async ({ amount }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
  });
}

const payThenDone = (amount: number) => [{ toolCalls: [{ id: 'p1', name: 'pay', input: { amount } }] }, { text: ['done'] }];

describe("the AI SDK's tool approval in the agent itself", () => {
  it('a tool with needsApproval: true waits for a person before it runs, and runs once approved', async () => {
    const paid: number[] = [];
    const agent = createAgent({ model: mockModel(payThenDone(50)), tools: { pay: payTool(paid, true) } });
    const run = agent.run('pay 50');
    const request = await nextEvent(agent, 'approval-request');
    expect(request).toMatchObject({ toolCallId: 'p1', toolName: 'pay', input: { amount: 50 } });
    expect(agent.pendingApprovals).toEqual(['p1']);
    expect(paid).toEqual([]);
    agent.approve('p1');
    expect((await run).outcome).toBe('completed');
    expect(paid).toEqual([50]);
  });

  it('a denied needsApproval call never runs, and the model reads the denial', async () => {
    const paid: number[] = [];
    const agent = createAgent({ model: mockModel(payThenDone(50)), tools: { pay: payTool(paid, true) } });
    const run = agent.run('pay 50');
    await nextEvent(agent, 'approval-request');
    agent.deny('p1', 'not today');
    const result = await run;
    expect(paid).toEqual([]);
    expect(toolOutputs(result.messages).p1).toEqual({ type: 'error-text', value: 'The user denied this tool call: not today' });
  });

  it('needsApproval as an async function of the input asks only when it says so', async () => {
    const paid: number[] = [];
    const needsApproval = async ({ amount }: { amount: number }) => amount > 100;
    const small = createAgent({ model: mockModel(payThenDone(5)), tools: { pay: payTool(paid, needsApproval) } });
    expect((await small.run('pay 5')).outcome).toBe('completed');
    expect(paid).toEqual([5]);

    const large = createAgent({ model: mockModel(payThenDone(500)), tools: { pay: payTool(paid, needsApproval) } });
    const run = large.run('pay 500');
    await nextEvent(large, 'approval-request');
    expect(paid).toEqual([5]);
    large.deny('p1');
    await run;
    expect(paid).toEqual([5]);
  });

  it("toolApproval: 'denied' with a reason answers the call without running it; 'user-approval' asks", async () => {
    const paid: number[] = [];
    const agent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'a', name: 'pay', input: { amount: 1 } }, { id: 'b', name: 'refund', input: { amount: 2 } }] }, { text: ['ok'] }]),
      tools: { pay: payTool(paid), refund: payTool(paid) },
      toolApproval: { pay: 'user-approval', refund: { type: 'denied', reason: 'refunds are off' } },
    });
    const denials: unknown[] = [];
    agent.events$.subscribe((event) => event.type === 'tool-result' && event.isError && denials.push(event.denied));
    const run = agent.run('go');
    await nextEvent(agent, 'approval-request');
    expect(agent.pendingApprovals).toEqual(['a']);
    expect(denials).toEqual([{ automatic: true, reason: 'refunds are off' }]);
    agent.approve('a');
    const result = await run;
    expect(paid).toEqual([1]);
    expect(toolOutputs(result.messages).b).toEqual({ type: 'error-text', value: 'Tool call denied by the approval policy: refunds are off' });
  });

  it('toolApproval as one function decides every call; a throw denies (fail closed)', async () => {
    const paid: number[] = [];
    const agent = createAgent({
      model: mockModel(payThenDone(7)),
      tools: { pay: payTool(paid) },
      toolApproval: () => {
        throw new Error('policy service down');
      },
    });
    const result = await agent.run('pay');
    expect(paid).toEqual([]);
    expect(toolOutputs(result.messages).p1).toMatchObject({ type: 'error-text', value: expect.stringMatching(/policy service down/) });
  });

  it("the stricter of loopchart's approval and the AI SDK's setting holds", async () => {
    const paid: number[] = [];
    const agent = createAgent({ model: mockModel(payThenDone(9)), tools: { pay: payTool(paid) }, approval: { allow: ['pay'] }, toolApproval: { pay: 'user-approval' } });
    const run = agent.run('pay');
    await nextEvent(agent, 'approval-request');
    agent.approve('p1');
    await run;
    expect(paid).toEqual([9]);
  });

  it('refuses a toolApproval entry that is no status, naming the field', () => {
    expect(() => createAgent({ model: mockModel([]), tools: {}, toolApproval: { pay: 'ask' } })).toThrow(AgentOptionsError);
    expect(() => createAgent({ model: mockModel([]), tools: {}, toolApproval: { pay: 'ask' } })).toThrow(/toolApproval\.pay/);
  });
});

describe('ToolLoopAgent settings loopchart does not honour', () => {
  it.each([
    ['activeTools', ['read'], /activeTools: not a createAgent option: return \{ activeTools \} from prepareStep/],
    ['temperature', 0.2, /temperature: not a createAgent option: a call setting goes with the model/],
    ['onStepFinish', () => undefined, /onStepFinish: not a createAgent option: pass onStepFinish to toAISDKAgent/],
    ['maxRetries', 2, /maxRetries: renamed: retry: \{ maxAttempts \}/],
  ])('refuses %s, naming what to use instead', (name, value, message) => {
    expect(() => createAgent({ model: mockModel([]), [name]: value })).toThrow(message);
  });

  // Every ToolLoopAgent setting createAgent does not take under the same name (a rename in the AI SDK fails the typecheck).
  const refused = [
    'allowSystemInMessages',
    'toolOrder',
    'toolCallConcurrency',
    'repairToolCall',
    'experimental_refineToolInput',
    'experimental_toolCallers',
    'experimental_download',
    'include',
    'reasoning',
    'toolsContext',
    'experimental_onStart',
    'experimental_onStepStart',
    'onLanguageModelCallStart',
    'onLanguageModelCallEnd',
    'onStepError',
  ] as const satisfies ReadonlyArray<keyof ToolLoopAgentSettings>;
  it.each(refused)('refuses %s, saying what to do instead, not as an unrecognized key', (name) => {
    let error: unknown;
    try {
      createAgent({ model: mockModel([]), [name]: true });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AgentOptionsError);
    expect((error as AgentOptionsError).issues).toEqual([{ path: name, message: expect.stringMatching(/^not /) }]);
  });
});
