import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, createActor, createMachine } from 'xstate';
import { startCliInspector, type CliInspector } from '../../src/cli/inspector.js';

let inspector: CliInspector | undefined;
afterEach(async () => {
  await inspector?.close();
  inspector = undefined;
});

describe('startCliInspector', () => {
  it('tells onDropped of the events its inspector dropped, how many and why', async () => {
    const onDropped = vi.fn();
    inspector = await startCliInspector({ port: 0, onDropped });
    const machine = createMachine({ context: { n: 0 }, on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) } } });
    const actor = createActor(machine, { inspect: inspector.inspect }).start();
    // All in this turn of the event loop, before the inspector's connection can open: far more than it holds meanwhile.
    for (let i = 0; i < 300; i++) actor.send({ type: 'inc' });
    actor.stop();
    await expect.poll(() => onDropped.mock.calls.length, { timeout: 30_000 }).toBe(1);
    const [events, reason] = onDropped.mock.calls[0] as [number, string];
    expect(events).toBeGreaterThan(0);
    expect(reason).toMatch(/maxDeferredEvents \(200\)/);
  });
});
