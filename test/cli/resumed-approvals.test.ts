import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { scriptedModel } from 'loopchart/test';
import { answerApprovals, waitingApprovals } from '../../src/cli/approval.js';
import { addTool } from '../support/tools.js';

describe('approvals a resumed session waits on', () => {
  it('waitingApprovals rebuilds the requests of the calls that wait, and answerApprovals answers them first', async () => {
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ id: 'call_add', name: 'add', input: { a: 1, b: 2 } }] }, { text: 'Three.' }]),
      tools: { add: addTool },
      approval: { ask: ['add'] },
    });
    expect(waitingApprovals(agent)).toEqual([]);
    const running = agent.run('add');
    await expect.poll(() => agent.pendingApprovals).toEqual(['call_add']);

    const waiting = waitingApprovals(agent);
    expect(waiting).toEqual([
      { type: 'approval-request', runId: expect.any(String), step: 1, toolCallId: 'call_add', toolName: 'add', input: { a: 1, b: 2 }, reason: 'policy' },
    ]);
    const notes: string[] = [];
    const stop = answerApprovals({ agent, waiting: Promise.resolve(waiting), mode: 'approve-all', info: (line) => notes.push(line), warn: () => {} });
    const result = await running;
    stop();
    expect(result).toMatchObject({ outcome: 'completed', text: 'Three.' });
    expect(notes).toEqual(['approved by --yes: add {"a":1,"b":2}']);
  });
});
