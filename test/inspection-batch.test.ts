import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { inspectionBatches } from '../src/inspect/inspection-batch.js';
import { mockModel } from './support/mock-model.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('inspectionBatches', () => {
  it('hands the adapter only the events the Stately inspector shows, after the synchronous work, in order, with histories summarised and secrets redacted', async () => {
    const sent: StatelyInspectionEvent[] = [];
    const observed: string[] = [];
    const batches = inspectionBatches({ send: (event) => sent.push(event) }, { secrets: ['sk-secret-77'] });
    const history = Array.from({ length: 300 }, (_, index) => ({ role: 'user' as const, content: `question ${index}` }));
    const agent = createAgent({
      model: mockModel([{ text: ['done, sk-secret-77'] }]),
      messages: history,
      inspect: (event) => {
        observed.push(event.type);
        batches.next?.(event);
      },
    });
    const running = agent.run('go');
    expect(sent).toEqual([]);
    await running;
    await nextTurn();

    expect(observed).toContain('@xstate.action');
    expect(observed).toContain('@xstate.microstep');
    const shown = observed.filter((type) => type === '@xstate.snapshot' || type === '@xstate.event' || type === '@xstate.actor');
    expect(sent.map((event) => event.type)).toEqual(shown);
    const text = JSON.stringify(sent);
    expect(text).not.toContain('sk-secret-77');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('question 17');
    const root = sent.filter((event): event is Extract<StatelyInspectionEvent, { type: '@xstate.snapshot' }> => event.type === '@xstate.snapshot' && event.sessionId === agent.actor.sessionId);
    expect((root.at(-1)!.snapshot as unknown as { context: { messages: unknown } }).context.messages).toEqual({ messages: 302, last: expect.stringContaining('[redacted]') });
    const actor = sent.find((event) => event.type === '@xstate.actor' && event.sessionId === agent.actor.sessionId) as { name: string; definition: string };
    expect(actor.name).toBe('agent');
    expect(JSON.parse(actor.definition)).toMatchObject({ id: 'agent', initial: 'idle' });
  });
});
