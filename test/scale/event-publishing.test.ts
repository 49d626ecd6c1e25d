import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_NOT_PUBLISHED_WARNING, EventNotPublishedError, eventPublishing } from '../../src/scale/event-publishing.js';

type Event = { type: string; n: number };

afterEach(() => vi.restoreAllMocks());

describe('eventPublishing: what became of each event handed to an app', () => {
  it('reports an event whose publisher threw, and goes on with the next', async () => {
    const failed: Array<[string, number]> = [];
    const taken: number[] = [];
    const publishing = eventPublishing<Event>({
      sessionId: 's-1',
      onEvent: (event) => {
        if (event.n === 1) throw new Error('broker refused');
        taken.push(event.n);
      },
      onEventError: (error, event) => failed.push([error.message, event.n]),
    });
    publishing.publish({ type: 'text-delta', n: 1 });
    publishing.publish({ type: 'text-delta', n: 2 });
    await publishing.settled(1_000);
    expect(failed).toEqual([['the text-delta event of session s-1 was not published: broker refused', 1]]);
    expect(taken).toEqual([2]);
    expect(publishing.failures).toBe(1);
  });

  it('reports a rejected publish with its cause, and waits for the ones that resolve', async () => {
    const errors: EventNotPublishedError[] = [];
    let resolveSecond!: () => void;
    const second = new Promise<void>((resolve) => (resolveSecond = resolve));
    const cause = new Error('connection reset');
    const publishing = eventPublishing<Event>({
      sessionId: 's-1',
      onEvent: (event) => (event.n === 1 ? Promise.reject(cause) : second),
      onEventError: (error) => errors.push(error),
    });
    publishing.publish({ type: 'message', n: 1 });
    publishing.publish({ type: 'message', n: 2 });
    let settled = false;
    const done = publishing.settled(60_000).then(() => (settled = true));
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 30_000 });
    expect(settled).toBe(false);
    resolveSecond();
    await done;
    expect(errors[0]).toBeInstanceOf(EventNotPublishedError);
    expect(errors[0]!.cause).toBe(cause);
  });

  it('stops waiting for a publisher that never answers, and reports each event it still held', async () => {
    const failed: number[] = [];
    const publishing = eventPublishing<Event>({
      sessionId: 's-1',
      onEvent: () => new Promise(() => undefined),
      onEventError: (error, event) => {
        expect(error.message).toContain('did not settle within 50 ms (eventTimeoutMs)');
        failed.push(event.n);
      },
    });
    publishing.publish({ type: 'message', n: 1 });
    publishing.publish({ type: 'message', n: 2 });
    await publishing.settled(50);
    expect(failed).toEqual([1, 2]);
  });

  it('waits for the events a tracked confirmation publishes when it settles', async () => {
    const published: number[] = [];
    const publishing = eventPublishing<Event>({ sessionId: 's-1', onEvent: async (event) => void published.push(event.n) });
    let confirm!: () => void;
    publishing.track(new Promise<void>((resolve) => (confirm = resolve)).then(() => publishing.publish({ type: 'message', n: 7 })));
    const done = publishing.settled(60_000);
    confirm();
    await done;
    expect(published).toEqual([7]);
  });

  it('warns once, as a LoopchartWarning, when the app gave no onEventError', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const publishing = eventPublishing<Event>({ sessionId: 's-1', onEvent: () => Promise.reject(new Error('down')) });
    publishing.publish({ type: 'message', n: 1 });
    publishing.publish({ type: 'message', n: 2 });
    await publishing.settled(1_000);
    expect(publishing.failures).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('the message event of session s-1 was not published: down');
    expect(warn.mock.calls[0]![1]).toMatchObject({ type: 'LoopchartWarning', code: EVENT_NOT_PUBLISHED_WARNING });
  });

  it('takes a thenable that is not a native promise as a publish to wait for', async () => {
    const failed: number[] = [];
    const thenable = { then: (_resolve: unknown, reject: (error: unknown) => void) => reject(new Error('no')) };
    const publishing = eventPublishing<Event>({ sessionId: 's-1', onEvent: () => thenable, onEventError: (_error, event) => failed.push(event.n) });
    publishing.publish({ type: 'message', n: 3 });
    await publishing.settled(1_000);
    expect(failed).toEqual([3]);
  });
});
