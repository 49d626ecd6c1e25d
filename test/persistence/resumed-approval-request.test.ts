import { describe, expect, it } from 'vitest';
import { AgentDisposedError, createAgent, fileStore, type AgentEvent } from '../../src/index.js';
import { mockModel } from '../support/mock-model.js';
import { nextEvent } from '../support/next-event.js';
import { addTool } from '../support/tools.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-resumed-approval-');

describe('a session restored while it waits for approval', () => {
  it('reports its approval-request again, and the answer to it finishes the run', async () => {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([{ toolCalls: [{ id: 'call_add', name: 'add', input: { a: 1, b: 2 } }] }]), tools: { add: addTool }, approval: { ask: ['add'] }, store, sessionId: 'chat' });
    const waiting = first.run('add 1 and 2');
    await nextEvent(first, 'approval-request');
    await first.dispose();
    await expect(waiting).rejects.toBeInstanceOf(AgentDisposedError);

    const second = createAgent({ model: mockModel([{ text: ['3'] }]), tools: { add: addTool }, approval: { ask: ['add'] }, store, sessionId: 'chat' });
    const requests: AgentEvent[] = [];
    second.events$.subscribe((event) => event.type === 'approval-request' && requests.push(event));
    await second.ready();

    expect(requests).toEqual([{ type: 'approval-request', runId: expect.any(String), step: 1, toolCallId: 'call_add', toolName: 'add', input: { a: 1, b: 2 }, reason: 'policy' }]);
    second.approve('call_add');
    await expect(second.resume()).resolves.toMatchObject({ outcome: 'completed', text: '3' });
  });
});
