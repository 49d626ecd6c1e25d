import {
  Actor,
  StateMachine,
  type ActorRefLike,
  type AnyActor,
  type AnyActorLogic,
  type AnyActorRef,
  type AnyActorScope,
  type AnyStateMachine,
  type CallbackLogicFunction,
  type EventObject,
  type InspectionEvent,
  type NonReducibleUnknown,
} from 'xstate';

/**
 * What loopchart reads of XState beyond the `ActorRef` interface, in one place, each held to the
 * installed xstate by `test/xstate-internals-contract.test.ts` (tested with xstate 5.33):
 *
 * - an actor's `_parent` (typed on `ActorRef`, undocumented): the shared agent machine's actors find
 *   the agent that invoked them, and so its own model and tools, without a machine copy per agent
 *   (`agentMachine.provide()` per agent copied the whole state-node tree: most of an idle agent's
 *   memory and of `createAgent`'s time); the inspector names each actor's parent with it;
 * - a `fromCallback` / `fromPromise` logic's `config` (typed `unknown` on `ActorLogic`): the function
 *   it was made from, which the shared actors call with the invoking agent's own implementation;
 * - the actor behind an inspection event (typed `ActorRefLike`: a session id, `send` and
 *   `getSnapshot`; XState sends its own `Actor`, whose `id`, `_parent` and `logic` the inspector
 *   shows), and the machine an actor runs (public: `Actor.logic`, a `StateMachine` with its `config`);
 * - the persisted snapshot's `children` (`{ [id]: { snapshot: { input, … }, src, syncSnapshot } }`): a
 *   checkpoint leaves the history out of the children's inputs and puts it back on restore;
 * - the actor system's `_sendInspectionEvent` (not typed), through which a machine's macrostep reports
 *   each microstep it takes with the transitions it took: the run trace, the run journal and telemetry
 *   read one machine's microsteps from there ({@link tapMicrosteps}). XState's public inspection
 *   (`createActor(…, { inspect })`, `system.inspect`) is system-wide, and XState gives it only to a
 *   root actor: a sub-agent's session, a child actor, could not watch its own run chart that way (its
 *   trace had no transitions), and an observer makes every action, snapshot, event and actor of the
 *   system an inspection event.
 */

/** The actor that invoked (or spawned) `actor`, if any. */
export function parentOf(actor: AnyActorRef): AnyActorRef | undefined {
  return actor._parent;
}

/** The actor an inspection event is about, when it is XState's own `Actor` (as every actor XState creates is). */
export function inspectedActor(actorRef: ActorRefLike): AnyActor | undefined {
  return actorRef instanceof Actor ? (actorRef as AnyActor) : undefined;
}

/** The state machine `actor` runs; undefined for an actor of other logic (a callback, a promise). */
export function machineOf(actor: AnyActor): AnyStateMachine | undefined {
  return actor.logic instanceof StateMachine ? (actor.logic as AnyStateMachine) : undefined;
}

/** The callback a `fromCallback` logic was made from. */
export function callbackOf(logic: AnyActorLogic): CallbackLogicFunction<EventObject, EventObject, NonReducibleUnknown> {
  return functionConfig(logic, 'fromCallback') as CallbackLogicFunction<EventObject, EventObject, NonReducibleUnknown>;
}

/** The promise creator a `fromPromise` logic was made from. */
export function promiseCreatorOf(logic: AnyActorLogic): (params: unknown) => PromiseLike<unknown> {
  return functionConfig(logic, 'fromPromise') as (params: unknown) => PromiseLike<unknown>;
}

function functionConfig(logic: AnyActorLogic, creator: string): unknown {
  const config = (logic as { config?: unknown }).config;
  if (typeof config !== 'function') throw new TypeError(`loopchart: expected ${creator} logic, whose config is the function it was made from (xstate changed?)`);
  return config;
}

/** One child in a persisted snapshot, as XState writes it. */
interface PersistedChild {
  snapshot?: { status?: string; input?: Record<string, unknown> };
  src?: unknown;
  syncSnapshot?: boolean;
}

/** A persisted machine snapshot, as far as its children go (XState's `getPersistedSnapshot`). */
export interface WithPersistedChildren {
  children?: Record<string, PersistedChild>;
}

/** True when the persisted snapshot has an invoked child `id` (restored, XState starts only the children it names). */
export function hasPersistedChild(persisted: WithPersistedChildren, id: string): boolean {
  return persisted.children?.[id] !== undefined;
}

/**
 * The persisted snapshot with each child's input replaced by what `map` makes of it (a child
 * without an input is kept as it is): restored, each child starts from its new input.
 */
export function withChildInputs<T extends WithPersistedChildren>(persisted: T, map: (input: Record<string, unknown>, id: string) => Record<string, unknown>): T {
  const children: Record<string, PersistedChild> = {};
  for (const [id, child] of Object.entries(persisted.children ?? {})) {
    const input = child.snapshot?.input;
    const mapped = input === undefined ? input : map(input, id);
    children[id] = mapped === input ? child : { ...child, snapshot: { ...child.snapshot, input: mapped } };
  }
  return { ...persisted, children };
}

/**
 * The persisted snapshot with one more invoked child, `id`, running logic `src` (the name the
 * machine's `actors` give it) from `input`: restored, XState starts it as if it had been running.
 */
export function withPersistedChild<T extends WithPersistedChildren>(persisted: T, id: string, src: string, input: Record<string, unknown>): T {
  return { ...persisted, children: { ...persisted.children, [id]: { snapshot: { status: 'active', input }, src, syncSnapshot: false } } };
}

/** The part of XState's actor system a machine's macrostep reports its microsteps through. */
interface InspectingSystem {
  _sendInspectionEvent: (event: InspectionEvent) => void;
}

/**
 * Tells `tap` of each microstep the machine of `scope` takes (XState's `@xstate.microstep` inspection
 * event: the snapshot after it and the transitions taken), whether or not anything inspects the
 * actor's system, and of nothing else. Returns the scope to give the machine's `getInitialSnapshot`
 * and every `transition` in place of `scope` (the caller keeps it, by `scope`); every other
 * inspection event goes to the system as before.
 *
 * @example
 * ```ts
 * const tappedScopes = new WeakMap<AnyActorScope, AnyActorScope>();
 * const tapped = Object.create(machine, {
 *   getInitialSnapshot: {
 *     value: (scope: AnyActorScope, input: unknown) => {
 *       const view = tapMicrosteps(scope, (event) => trace(event));
 *       tappedScopes.set(scope, view);
 *       return machine.getInitialSnapshot(view, input);
 *     },
 *   },
 *   transition: { value: (snapshot, event, scope) => machine.transition(snapshot, event, tappedScopes.get(scope) ?? scope) },
 * });
 * ```
 */
export function tapMicrosteps(scope: AnyActorScope, tap: (event: InspectionEvent) => void): AnyActorScope {
  const system = scope.system as AnyActorScope['system'] & Partial<InspectingSystem>;
  const send = system._sendInspectionEvent;
  if (typeof send !== 'function') throw new TypeError('loopchart: the actor system has no _sendInspectionEvent to read microsteps from (xstate changed?)');
  const self = scope.self;
  const sendInspectionEvent = (event: InspectionEvent): void => {
    if (event.type === '@xstate.microstep' && event.actorRef === self) tap(event);
    send(event);
  };
  // Copies, not `Object.create(system)` / `Object.create(scope)`: an object made a prototype gets a map of its own, so every agent's
  // system and scope had a different shape and XState's property reads on them went megamorphic (about 8% of the CPU of 1,000 agents).
  const tappedSystem = { ...system, _sendInspectionEvent: sendInspectionEvent };
  return { ...scope, system: tappedSystem } as AnyActorScope;
}
