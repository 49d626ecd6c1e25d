import { createActor, createMachine, fromCallback, fromPromise, setup, waitFor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { callbackOf, parentOf, promiseCreatorOf, type PersistedChild } from '../src/machine/xstate-internals.js';

/** The installed xstate still behaves as loopchart reads it (src/machine/xstate-internals.ts). */
describe('what loopchart reads of XState beyond its documented API (contract with the installed xstate)', () => {
  it('an invoked child knows the actor that invoked it', async () => {
    let seen: unknown;
    const child = fromCallback(({ self }) => {
      seen = parentOf(self);
    });
    const machine = setup({ actors: { child } }).createMachine({ invoke: { src: 'child' } });
    const parent = createActor(machine).start();
    await waitFor(parent, () => seen !== undefined);
    expect(seen).toBe(parent);
    parent.stop();
  });

  it('fromCallback and fromPromise logic keep the function they were made from', () => {
    const callback = () => undefined;
    const creator = async () => 1;
    expect(callbackOf(fromCallback(callback))).toBe(callback);
    expect(promiseCreatorOf(fromPromise(creator))).toBe(creator);
    expect(() => callbackOf(createMachine({}))).toThrow(/expected fromCallback logic/);
  });

  it('a persisted snapshot names each invoked child with its snapshot (and input) and its src, and restores from that', () => {
    const worker = fromCallback<{ type: 'ping' }, { job: string }>(() => undefined);
    const machine = setup({ actors: { worker } }).createMachine({ initial: 'busy', states: { busy: { invoke: { id: 'w', src: 'worker', input: { job: 'j1' } } } } });
    const actor = createActor(machine).start();
    const persisted = actor.getPersistedSnapshot() as unknown as { children: Record<string, PersistedChild> };
    expect(persisted.children.w).toMatchObject({ src: 'worker', snapshot: { status: 'active', input: { job: 'j1' } } });
    actor.stop();
    const changed = { ...persisted, children: { w: { ...persisted.children.w, snapshot: { ...persisted.children.w!.snapshot, input: { job: 'j2' } } } } };
    const restored = createActor(machine, { snapshot: changed as never }).start();
    expect((restored.getPersistedSnapshot() as unknown as { children: Record<string, PersistedChild> }).children.w?.snapshot?.input).toEqual({ job: 'j2' });
    restored.stop();
  });
});
