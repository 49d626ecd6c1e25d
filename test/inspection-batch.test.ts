import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { tool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
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
    // Every actor and event, in order; snapshots only where they show something new (the next test).
    const shown = observed.filter((type) => type === '@xstate.event' || type === '@xstate.actor');
    expect(sent.map((event) => event.type).filter((type) => type !== '@xstate.snapshot')).toEqual(shown);
    expect(sent.filter((event) => event.type === '@xstate.snapshot').length).toBeGreaterThan(0);
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

  it("leaves out a snapshot an actor shows again unchanged (after the one it was created with, too), and shows a run's result by its outcome, counts and final text, not its steps and trace", async () => {
    const sent: StatelyInspectionEvent[] = [];
    const batches = inspectionBatches({ send: (event) => sent.push(event) });
    const repeated: string[] = [];
    const last = new Map<string, unknown>();
    const echo = tool({ inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => n });
    const model = mockModel([{ toolCalls: [{ name: 'echo', input: { n: 1 } }] }, { toolCalls: [{ name: 'echo', input: { n: 2 } }] }, { text: ['done'] }]);
    const agent = createAgent({
      model,
      tools: { echo },
      inspect: (event) => {
        if (event.type === '@xstate.snapshot') {
          if (last.get(event.actorRef.sessionId) === event.snapshot) repeated.push(event.event.type);
          last.set(event.actorRef.sessionId, event.snapshot);
        }
        batches.next?.(event);
      },
    });
    await agent.run('go');
    await nextTurn();

    // The tool runner takes each step's calls without a snapshot of its own to show.
    expect(repeated).toEqual(['tools.start', 'tools.start']);
    const snapshots = sent.filter((event): event is Extract<StatelyInspectionEvent, { type: '@xstate.snapshot' }> => event.type === '@xstate.snapshot');
    // Consecutive snapshots of one actor, its creation's included, always differ.
    const lastShown = new Map<string, string>();
    for (const event of sent) {
      if (event.type !== '@xstate.actor' && event.type !== '@xstate.snapshot') continue;
      const text = JSON.stringify(event.snapshot);
      if (event.type === '@xstate.snapshot') expect(text).not.toBe(lastShown.get(event.sessionId));
      lastShown.set(event.sessionId, text);
    }
    // The llm actor of a step is shown as it began and as it stopped, not again as it took xstate.init.
    const llmSessions = new Set(sent.filter((event) => event.type === '@xstate.actor' && (event as { name: string }).name === 'llm').map((event) => event.sessionId));
    expect(llmSessions.size).toBe(3);
    expect(snapshots.filter((event) => llmSessions.has(event.sessionId)).map((event) => (event.snapshot as unknown as { status: string }).status)).toEqual(['stopped', 'stopped', 'stopped']);
    const eventsShown = sent.filter((event) => event.type === '@xstate.event').map((event) => (event as { event: { type: string } }).event.type);
    expect(eventsShown.filter((type) => type === 'tools.start')).toHaveLength(2);
    expect(snapshots.filter((event) => (event.event as { type: string }).type === 'tools.start')).toEqual([]);
    const ended = sent.find((event) => event.type === '@xstate.event' && (event.event as { type: string }).type === 'run.ended') as unknown as { event: { result: Record<string, unknown> } };
    expect(ended.event.result).toEqual({ outcome: 'completed', stepCount: 3, toolCallCount: 2, usage: expect.any(Object), text: 'done', messages: { messages: 6, last: expect.stringContaining('done') } });
  });

  it('shows each actor with the snapshot it began with, not the one it has when the batch is sent (an llm actor has stopped by then)', async () => {
    const sent: StatelyInspectionEvent[] = [];
    const batches = inspectionBatches({ send: (event) => sent.push(event) });
    const echo = tool({ inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => n });
    const model = mockModel([{ toolCalls: [{ name: 'echo', input: { n: 1 } }] }, { toolCalls: [{ name: 'echo', input: { n: 2 } }] }, { text: ['done'] }]);
    const agent = createAgent({ model, tools: { echo }, inspect: batches });
    await agent.run('go');
    await nextTurn();

    const actors = sent.filter((event): event is Extract<StatelyInspectionEvent, { type: '@xstate.actor' }> => event.type === '@xstate.actor');
    const began = (name: string) => actors.filter((event) => event.name === name).map((event) => event.snapshot as unknown as { status: string; input?: { step?: number }; value?: unknown; context?: { messages: unknown } });
    expect(actors.map((event) => (event.snapshot as unknown as { status: string }).status)).toEqual(actors.map(() => 'active'));
    expect(began('llm').map((snapshot) => snapshot.input?.step)).toEqual([1, 2, 3]);
    // The agent began idle with an empty history: the run's six messages came later.
    expect(began('agent')).toEqual([expect.objectContaining({ value: 'idle', context: expect.objectContaining({ messages: { messages: 0 } }) })]);
  });

  it('does not read an actor\'s snapshot while it sets itself up (XState\'s development build throws then), and goes on when reading it throws', async () => {
    const sent: StatelyInspectionEvent[] = [];
    const batches = inspectionBatches({ send: (event) => sent.push(event) });
    let reads = 0;
    const settingUp = { sessionId: 'x:9', id: 'x:9', getSnapshot: () => (reads++, (() => { throw new Error("Snapshot can't be read while the actor initializes itself"); })()) } as unknown as AnyActorRef;
    batches.next?.({ type: '@xstate.actor', actorRef: settingUp, rootId: 'x:9' });
    batches.next?.({ type: '@xstate.microstep', actorRef: settingUp, rootId: 'x:9', event: { type: 'xstate.init' }, snapshot: {}, _transitions: [] } as unknown as InspectionEvent);
    expect(reads).toBe(0);
    expect(() => batches.next?.({ type: '@xstate.event', actorRef: settingUp, rootId: 'x:9', event: { type: 'e' }, sourceRef: undefined })).not.toThrow();
    expect(reads).toBe(1);
    await nextTurn();
    // Converted without a snapshot to read, the actor is shown as @statelyai/inspect shows one: active.
    expect(sent.map((event) => [event.type, event.type === '@xstate.actor' ? event.snapshot : undefined])).toEqual([
      ['@xstate.actor', { status: 'active' }],
      ['@xstate.event', undefined],
    ]);
  });

  it('gives an adapter that takes whole batches one call per batch: the same events as JSON texts, secrets redacted in the text', async () => {
    const secret = 'sk-"quoted"-secret-77';
    const perEvent: StatelyInspectionEvent[] = [];
    const batches: string[][] = [];
    const both = (event: InspectionEvent) => {
      single.next?.(event);
      batched.next?.(event);
    };
    const single = inspectionBatches({ send: (event) => perEvent.push(event) }, { secrets: [secret] });
    const batched = inspectionBatches({ send: () => expect.fail('send is not used when sendBatch is there'), sendBatch: (texts) => batches.push(texts) }, { secrets: [secret] });
    await createAgent({ model: mockModel([{ text: [`done, ${secret}`] }]), inspect: both }).run(`say ${secret}`);
    await nextTurn();

    expect(batches.length).toBeGreaterThan(0);
    const texts = batches.flat();
    expect(texts.join('\n')).not.toContain(JSON.stringify(secret).slice(1, -1));
    const withoutTimes = (event: object) => ({ ...event, createdAt: undefined });
    expect(texts.map((text) => withoutTimes(JSON.parse(text) as object))).toEqual(perEvent.map(withoutTimes));
  });

  it('sends only the events the filter keeps, converted, to either kind of adapter', async () => {
    const kept: StatelyInspectionEvent[] = [];
    const texts: string[] = [];
    const onlySnapshots = (event: StatelyInspectionEvent) => event.type === '@xstate.snapshot';
    const single = inspectionBatches({ send: (event) => kept.push(event) }, { filter: onlySnapshots });
    const whole = inspectionBatches({ send: () => undefined, sendBatch: (batch) => texts.push(...batch) }, { filter: onlySnapshots });
    await createAgent({ model: mockModel([{ text: ['done'] }]), inspect: (event) => (single.next?.(event), whole.next?.(event)) }).run('go');
    await nextTurn();
    expect(kept.length).toBeGreaterThan(0);
    expect(new Set(kept.map((event) => event.type))).toEqual(new Set(['@xstate.snapshot']));
    expect(texts.map((text) => (JSON.parse(text) as StatelyInspectionEvent).type)).toEqual(kept.map((event) => event.type));
  });

  it('drops an event its filter throws on, tells onDropped how many and why, and sends the rest: a throw never escapes into the event loop', async () => {
    const sent: StatelyInspectionEvent[] = [];
    const onDropped = vi.fn();
    const filter = (event: StatelyInspectionEvent) => {
      if (event.type === '@xstate.event' && event.event.type === 'bad') throw new Error('filter bug');
      return true;
    };
    const batches = inspectionBatches({ send: (event) => sent.push(event) }, { filter, onDropped });
    const actorRef = { sessionId: 'x:1', id: 'x:1', getSnapshot: () => ({ status: 'active' }) } as unknown as AnyActorRef;
    for (const type of ['bad', 'good', 'bad']) batches.next?.({ type: '@xstate.event', actorRef, rootId: 'x:1', event: { type }, sourceRef: undefined });
    await nextTurn();
    expect(sent.map((event) => event.type === '@xstate.event' && event.event.type)).toEqual(['good']);
    expect(onDropped.mock.calls).toEqual([[2, 'its filter threw: filter bug']]);
  });

  it('stamps every event with the protocol version of the installed @statelyai/inspect (update it with the package)', async () => {
    const entry = createRequire(import.meta.url).resolve('@statelyai/inspect');
    const { version } = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
    const sent: StatelyInspectionEvent[] = [];
    const batches = inspectionBatches({ send: (event) => sent.push(event) });
    await createAgent({ model: mockModel([{ text: ['hi'] }]), inspect: batches }).run('go');
    await nextTurn();
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent.map((event) => event._version))).toEqual(new Set([version]));
  });
});

