import { createActor, createMachine, fromCallback, fromPromise, setup, waitFor, type AnyActorScope, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  callbackOf,
  hasPersistedChild,
  inspectedActor,
  machineOf,
  parentOf,
  promiseCreatorOf,
  tapMicrosteps,
  withChildInputs,
  withPersistedChild,
  type WithPersistedChildren,
} from '../src/machine/xstate-internals.js';

const persistedOf = (actor: { getPersistedSnapshot(): unknown }) => actor.getPersistedSnapshot() as WithPersistedChildren;

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

  it("an inspection event's actor is XState's own Actor: its id, its parent and the machine it runs (with its config) can be read", () => {
    const worker = fromCallback(() => undefined);
    const inner = createMachine({ id: 'inner', invoke: { id: 'w', src: worker } });
    const outer = setup({ actors: { inner } }).createMachine({ id: 'outer', invoke: { id: 'child', src: 'inner' } });
    const created: InspectionEvent[] = [];
    const root = createActor(outer, { inspect: (event) => event.type === '@xstate.actor' && created.push(event) }).start();
    const actors = created.map((event) => inspectedActor(event.actorRef));
    expect(actors.map((actor) => actor?.id)).toEqual([root.id, 'child', 'w']);
    const [rootActor, child, callback] = actors;
    expect(machineOf(rootActor!)).toBe(outer);
    expect(machineOf(rootActor!)?.config.id).toBe('outer');
    expect(machineOf(child!)?.config.id).toBe('inner');
    expect(machineOf(callback!)).toBeUndefined();
    expect(parentOf(child!)).toBe(root);
    expect(parentOf(callback!)).toBe(child);
    expect(inspectedActor({ sessionId: 'x', send: () => undefined, getSnapshot: () => undefined })).toBeUndefined();
    root.stop();
  });

  it('a persisted snapshot names each invoked child with its snapshot (and input) and its src, and restores from that', () => {
    const worker = fromCallback<{ type: 'ping' }, { job: string }>(() => undefined);
    const machine = setup({ actors: { worker } }).createMachine({ initial: 'busy', states: { busy: { invoke: { id: 'w', src: 'worker', input: { job: 'j1' } } } } });
    const actor = createActor(machine).start();
    const persisted = persistedOf(actor);
    expect(persisted.children?.w).toMatchObject({ src: 'worker', snapshot: { status: 'active', input: { job: 'j1' } } });
    expect(hasPersistedChild(persisted, 'w')).toBe(true);
    expect(hasPersistedChild(persisted, 'other')).toBe(false);
    actor.stop();
    const changed = withChildInputs(persisted, (input, id) => (id === 'w' ? { ...input, job: 'j2' } : input));
    const restored = createActor(machine, { snapshot: changed as never }).start();
    expect(persistedOf(restored).children?.w?.snapshot?.input).toEqual({ job: 'j2' });
    restored.stop();
  });

  it('a child added to a persisted snapshot is started on restore, from the input it was given', async () => {
    const started: unknown[] = [];
    const worker = fromCallback<{ type: 'ping' }, { job: string }>(({ input }) => {
      started.push(input);
    });
    const machine = setup({ actors: { worker } }).createMachine({ initial: 'busy', states: { busy: {} } });
    const actor = createActor(machine).start();
    const persisted = persistedOf(actor);
    actor.stop();
    const withWorker = withPersistedChild(persisted, 'w', 'worker', { job: 'added' });
    const restored = createActor(machine, { snapshot: withWorker as never }).start();
    await waitFor(restored, () => started.length > 0);
    expect(started).toEqual([{ job: 'added' }]);
    expect(persistedOf(restored).children?.w).toMatchObject({ src: 'worker', snapshot: { input: { job: 'added' } } });
    restored.stop();
  });

  it("a machine's microsteps reach a tap with their transitions, with nothing inspecting the system, and still reach the system's observers", async () => {
    const worker = fromCallback(({ sendBack }) => {
      sendBack({ type: 'done' });
    });
    const machine = setup({ actors: { worker }, guards: { ready: () => true } }).createMachine({
      id: 'm',
      initial: 'idle',
      states: {
        idle: { on: { go: 'checking' } },
        checking: { always: { guard: 'ready', target: 'working' } },
        working: { invoke: { src: 'worker' }, on: { done: 'finished' } },
        finished: {},
      },
    });
    const tapped: InspectionEvent[] = [];
    const guardName = (guard: unknown) => (guard === undefined ? undefined : typeof guard === 'string' ? guard : (guard as { type?: string }).type);
    const tappedScopes = new WeakMap<AnyActorScope, AnyActorScope>();
    const tapping = (inner: AnyStateMachine) =>
      Object.create(inner, {
        getInitialSnapshot: {
          value: (scope: AnyActorScope, input: unknown) => {
            const view = tapMicrosteps(scope, (event) => tapped.push(event));
            tappedScopes.set(scope, view);
            return inner.getInitialSnapshot(view, input);
          },
        },
        transition: { value: (snapshot: never, event: never, scope: AnyActorScope) => inner.transition(snapshot, event, tappedScopes.get(scope) ?? scope) },
      }) as AnyStateMachine;
    const transitionsOf = (events: InspectionEvent[]) =>
      events.flatMap((event) =>
        event.type === '@xstate.microstep'
          ? event._transitions.map((transition) => ({ event: transition.eventType, to: transition.target?.map((node) => node.path.join('.')), guard: guardName(transition.guard) }))
          : [],
      );
    const expected = [
      { event: 'go', to: ['checking'], guard: undefined },
      { event: '', to: ['working'], guard: 'ready' },
      { event: 'done', to: ['finished'], guard: undefined },
    ];

    const quiet = createActor(tapping(machine)).start();
    quiet.send({ type: 'go' });
    await waitFor(quiet, (snapshot) => snapshot.matches('finished'));
    expect(transitionsOf(tapped)).toEqual(expected);
    expect(tapped.every((event) => event.actorRef === quiet)).toBe(true);
    quiet.stop();

    tapped.length = 0;
    const inspected: InspectionEvent[] = [];
    const watched = createActor(tapping(machine), { inspect: (event) => inspected.push(event) }).start();
    watched.send({ type: 'go' });
    await waitFor(watched, (snapshot) => snapshot.matches('finished'));
    expect(transitionsOf(tapped)).toEqual(expected);
    expect(transitionsOf(inspected.filter((event) => event.actorRef === watched))).toEqual(expected);
    expect(inspected.some((event) => event.type === '@xstate.actor' && event.actorRef !== watched)).toBe(true);
    watched.stop();
  });
});
