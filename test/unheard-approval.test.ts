import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentTool, createAgent } from '../src/index.js';
import { UNHEARD_APPROVAL_WARNING } from '../src/unheard-approval.js';
import { buildCli } from './cli/support/cli-process.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const warnings: Error[] = [];
const collect = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', collect);
  warnings.length = 0;
});

const asksToAdd = () =>
  createAgent({ model: mockModel([{ toolCalls: [{ id: 'call_add', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }]), tools: { add: addTool }, approval: { ask: ['add'] } });

/** An agent whose one tool call runs `child` as its sub-agent (`agentTool`), then answers "done". */
const callingAgent = (child: ReturnType<typeof asksToAdd>) =>
  createAgent({
    model: mockModel([{ toolCalls: [{ id: 'call_child', name: 'helper', input: { task: 'add 1 and 2' } }] }, { text: ['done'] }]),
    tools: { helper: agentTool(child, { description: 'adds' }) },
  });

describe('a tool call that waits for approval nobody hears of', () => {
  it('is said in a process warning that names the call and how to answer it', async () => {
    process.on('warning', collect);
    const agent = asksToAdd();
    const run = agent.run('add');
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]).toMatchObject({ name: 'LoopchartWarning', code: UNHEARD_APPROVAL_WARNING });
    expect(warnings[0]!.message).toContain('waits for approval of add (call_add), and nothing subscribes to agent.events$');
    agent.deny('call_add');
    await expect(run).resolves.toMatchObject({ outcome: 'completed' });
  });

  it('is not warned of when events$ has a subscriber', async () => {
    process.on('warning', collect);
    const agent = asksToAdd();
    agent.events$.subscribe((event) => event.type === 'approval-request' && agent.approve(event.toolCallId));
    await expect(agent.run('add')).resolves.toMatchObject({ outcome: 'completed', text: '3' });
    expect(warnings).toEqual([]);
  });

  it('is warned of for an existing agent used as a sub-agent when nothing hears the calling agent, which passes its events on', async () => {
    process.on('warning', collect);
    const child = asksToAdd();
    const parent = callingAgent(child);
    const run = parent.run('get help');
    await expect.poll(() => warnings.length, { timeout: 30_000 }).toBe(1);
    expect(warnings[0]).toMatchObject({ name: 'LoopchartWarning', code: UNHEARD_APPROVAL_WARNING });
    expect(warnings[0]!.message).toContain('waits for approval of add (call_add)');
    child.approve('call_add');
    await expect(run).resolves.toMatchObject({ outcome: 'completed', text: 'done' });
  });

  it('is not warned of for an existing sub-agent when the calling agent\'s events$ has a subscriber', async () => {
    process.on('warning', collect);
    const child = asksToAdd();
    const parent = callingAgent(child);
    parent.events$.subscribe((event) => event.type === 'subagent' && event.event.type === 'approval-request' && child.approve(event.event.toolCallId));
    await expect(parent.run('get help')).resolves.toMatchObject({ outcome: 'completed', text: 'done' });
    expect(warnings).toEqual([]);
  });

  describe('in a script whose last promise is the run', () => {
    beforeAll(() => buildCli(), 60_000);

    it('ends with exit code 13 and the warning on stderr, not in silence', () => {
      const program = `
        import { createAgent } from 'loopchart';
        import { scriptedModel } from 'loopchart/test';
        import { tool } from 'ai';
        import { z } from 'zod';
        const add = tool({ inputSchema: z.object({ a: z.number() }), execute: async ({ a }) => a });
        const agent = createAgent({ model: scriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1 } }] }]), tools: { add }, approval: { ask: ['add'] } });
        await agent.run('add');
      `;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: path.resolve(import.meta.dirname, '..'), encoding: 'utf8', timeout: 30_000 });
      expect(child.status).toBe(13);
      expect(child.stderr).toContain('LoopchartWarning: run');
      expect(child.stderr).toContain('waits for approval of add');
    });
  });
});
