import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { tool } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyPatch, backReferenceResolverSource, resolveBackReferences, withBackReferences } from '../src/inspect/back-references.js';
import { inspectionBatches } from '../src/inspect/inspection-batch.js';
import { batchFrame, frameEvents } from '../src/inspect/inspection-frame.js';
import { createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const roundTrip = (events: object[]) => resolveBackReferences(withBackReferences(events)!.map((event) => asJson(event)));

/**
 * Events as a batch holds them: a few actors, each event's `event` and each
 * context value drawn from a pool of shared objects (so later events repeat
 * earlier ones by identity), values JSON leaves out among them.
 */
const batchOfEvents = fc
  .record({
    pool: fc.array(fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), fc.array(fc.integer(), { maxLength: 3 })), {
      minLength: 1,
      maxLength: 6,
    }),
    shapes: fc.array(
      fc.record({
        type: fc.constantFrom('@xstate.event', '@xstate.snapshot', '@xstate.actor'),
        sessionId: fc.constantFrom('x:0', 'x:1', 'x:2', undefined),
        event: fc.nat(),
        status: fc.constantFrom('active', 'done', 'stopped'),
        context: fc.dictionary(
          fc.constantFrom('config', 'messages', 'run', 'queues', '__proto__', 'gone'),
          fc.oneof(
            fc.nat().map((index) => ({ pooled: index })),
            fc.jsonValue({ maxDepth: 1 }),
            fc.constant(undefined),
            fc.constant(() => 1),
            fc.constant(new Date(0)),
            fc.constant({ toJSON: () => undefined }),
          ),
          { maxKeys: 5 },
        ),
        value: fc.oneof(fc.constant('idle'), fc.constant({ running: 'llm' })),
        repeat: fc.boolean(),
      }),
      { maxLength: 25 },
    ),
  })
  .map(({ pool, shapes }) => {
    const pick = (index: number) => pool[index % pool.length]!;
    const events: object[] = [];
    let lastSnapshot: object | undefined;
    for (const { type, sessionId, event, status, context, value, repeat } of shapes) {
      const resolved: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(context)) {
        Object.defineProperty(resolved, key, {
          value: entry !== null && typeof entry === 'object' && 'pooled' in entry ? pick(entry.pooled as number) : entry,
          enumerable: true,
        });
      }
      const base = { _version: '0.7.2', createdAt: '1', id: null, rootId: 'x:0', ...(sessionId !== undefined ? { sessionId } : {}), type, event: pick(event) };
      if (type === '@xstate.event') {
        events.push(base);
        continue;
      }
      // Now and then the very snapshot object an earlier event carried, as XState repeats a callback actor's.
      const snapshot = repeat && lastSnapshot !== undefined ? lastSnapshot : { status, context: resolved, value };
      lastSnapshot = snapshot;
      events.push({ ...base, snapshot });
    }
    return events;
  });

describe('back-references in a batch frame', () => {
  it('resolve to every event as JSON would have it, whatever the events share', () => {
    fc.assert(
      fc.property(batchOfEvents, (events) => {
        expect(roundTrip(events)).toEqual(events.map((event) => asJson(event)));
      }),
    );
  });

  it('write what a snapshot repeats of the same actor’s earlier one as a patch, and a repeated event as a reference', () => {
    const config = { maxSteps: 5, retry: { maxAttempts: 3 } };
    const event = { type: 'llm.finish', text: 'done' };
    const first = { sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'xstate.init' }, snapshot: { status: 'active', context: { config, steps: 1 }, value: 'idle' } };
    const told = { sessionId: 'x:0', type: '@xstate.event', event };
    const second = { sessionId: 'x:0', type: '@xstate.snapshot', event, snapshot: { status: 'active', context: { config, steps: 2 }, value: 'idle' } };
    const written = withBackReferences([first, told, second])!;

    expect(written[0]).toBe(first);
    expect(written[1]).toBe(told);
    expect(written[2]).toEqual({
      sessionId: 'x:0',
      type: '@xstate.snapshot',
      event: { '@loopchart.same': 1 },
      snapshot: { '@loopchart.patch': { base: 0, set: { context: { '@loopchart.patch': { set: { steps: 2 } } } } } },
    });
    // The events given are left as they were.
    expect(second.event).toBe(event);
    expect(roundTrip([first, told, second])).toEqual(asJson([first, told, second]));
  });

  it('reach back only: a reference to its own or a later line resolves to nothing instead of to an unresolved event', () => {
    const events = [
      { type: '@xstate.event', event: { '@loopchart.same': 1 } },
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'e' }, snapshot: { '@loopchart.patch': { base: 1, set: { status: 'active' } } } },
    ];
    expect(resolveBackReferences(events)).toEqual([{ type: '@xstate.event' }, { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'e' }, snapshot: { status: 'active' } }]);
  });

  it('take at least a sixth off a tool loop’s bytes (its run result, summarised, repeats nothing now), and give back the same events', async () => {
    const batches = (readsBackReferences: boolean) => {
      const texts: string[][] = [];
      const frames: string[] = [];
      const sendBatch = (batch: string[], referring?: boolean) => {
        texts.push(batch);
        frames.push(batchFrame(batch, referring));
      };
      return { texts, frames, inspect: inspectionBatches({ send: () => expect.fail('batches only'), sendBatch, readsBackReferences }) };
    };
    const full = batches(false);
    const referring = batches(true);
    const toolCall = (step: number) => ({ toolCalls: [{ id: `c${step}`, name: 'echo', input: { n: step } }] });
    await createAgent({
      model: mockModel([toolCall(1), toolCall(2), toolCall(3), { text: ['done'] }]),
      tools: { echo: tool({ description: 'echo', inputSchema: z.object({ n: z.number() }), execute: ({ n }) => n }) },
      inspect: (event) => {
        full.inspect.next?.(event);
        referring.inspect.next?.(event);
      },
    }).run('go');
    await new Promise((resolve) => setImmediate(resolve));

    const bytes = (texts: string[][]) => texts.flat().reduce((sum, text) => sum + text.length, 0);
    expect(bytes(referring.texts)).toBeLessThan(bytes(full.texts) * (5 / 6));
    const withoutTimes = (events: unknown[]) => (events as StatelyInspectionEvent[]).map(({ createdAt: _createdAt, ...event }) => event);
    expect(withoutTimes(referring.frames.flatMap((frame) => frameEvents(frame)))).toEqual(withoutTimes(full.frames.flatMap((frame) => frameEvents(frame))));
    expect(referring.frames.some((frame) => frame.includes('"@loopchart.patch":'))).toBe(true);
    expect(full.frames.some((frame) => frame.includes('"@loopchart.patch":') || frame.includes('"@loopchart.same":'))).toBe(false);
  });

  it('are not written for a batch holding data that would read as one: that batch goes whole, and resolves to itself', () => {
    const config = { maxSteps: 5 };
    const lookalikes: object[][] = [
      [{ sessionId: 'x:0', type: '@xstate.event', event: { '@loopchart.same': 0 } }],
      [{ sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'a' }, snapshot: { '@loopchart.patch': { base: 0 } } }],
      [
        { sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'a' }, snapshot: { context: { config }, value: 'idle' } },
        { sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'b' }, snapshot: { context: { config }, value: { '@loopchart.patch': { set: { x: 1 } } } } },
      ],
    ];
    for (const events of lookalikes) expect(withBackReferences(events)).toBeUndefined();
    // Deeper than a patch goes, such keys are plain data.
    const deep = [
      { sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'a' }, snapshot: { context: { config, run: { step: 1 } } } },
      { sessionId: 'x:0', type: '@xstate.snapshot', event: { type: 'b' }, snapshot: { context: { config, run: { '@loopchart.patch': { set: { step: 9 } } } } } },
    ];
    expect(roundTrip(deep)).toEqual(asJson(deep));
  });

  it('take a malformed patch as no change rather than throw or recurse: the relay resolves what any client with its token sends', () => {
    const base = { status: 'active', context: { steps: 1 } };
    expect(applyPatch(base, { unset: 1, set: [] })).toEqual(base);
    expect(applyPatch(base, { unset: ['status', 3], set: { context: { '@loopchart.patch': { set: { steps: 2 } } } } })).toEqual({ context: { steps: 2 } });
    let nested: unknown = { steps: 3 };
    for (let level = 0; level < 50_000; level++) nested = { '@loopchart.patch': { set: { deeper: nested } } };
    expect(() => applyPatch(base, { set: { context: nested } })).not.toThrow();
    expect(applyPatch(null, 'nonsense')).toEqual({});
  });

  it('resolve in a page from their own source alone: it names nothing outside itself, also as tsx compiles it', async () => {
    const frame = [{ type: '@xstate.event', event: { type: 'e' } }, { type: '@xstate.snapshot', sessionId: 'x:0', event: { '@loopchart.same': 0 }, snapshot: { status: 'active' } }];
    const inPage = (source: string) => runInNewContext(`${source}\nresolveFrameReferences(${JSON.stringify(frame)})`, {}) as unknown;
    const expected = [{ type: '@xstate.event', event: { type: 'e' } }, { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'e' }, snapshot: { status: 'active' } }];
    expect(asJson(inPage(backReferenceResolverSource()))).toEqual(expected);

    // tsx (the CLI's and the demo's loader) compiles with esbuild's keepNames, which adds calls to a helper inside functions that define named ones.
    const module = fileURLToPath(new URL('../src/inspect/back-references.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--import',
      import.meta.resolve('tsx'),
      '--input-type=module',
      '-e',
      `const { backReferenceResolverSource } = await import(${JSON.stringify(module)}); process.stdout.write(backReferenceResolverSource());`,
    ]);
    expect(asJson(inPage(stdout))).toEqual(expected);
  });
});
