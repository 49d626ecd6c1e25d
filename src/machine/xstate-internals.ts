import type { AnyActorLogic, AnyActorRef, CallbackLogicFunction, EventObject, NonReducibleUnknown } from 'xstate';

/**
 * The three things loopchart reads of XState beyond its documented API, in one place, each held to
 * the installed xstate by `test/xstate-internals-contract.test.ts` (tested with xstate 5.33):
 *
 * - an actor's `_parent` (typed on `ActorRef`, undocumented): the shared agent machine's actors find
 *   the agent that invoked them, and so its own model and tools, without a machine copy per agent
 *   (`agentMachine.provide()` per agent copied the whole state-node tree: most of an idle agent's
 *   memory and of `createAgent`'s time);
 * - a `fromCallback` / `fromPromise` logic's `config` (typed `unknown` on `ActorLogic`): the function
 *   it was made from, which the shared actors call with the invoking agent's own implementation;
 * - the persisted snapshot's `children` (`{ [id]: { snapshot, src, syncSnapshot } }`): a checkpoint
 *   leaves the history out of the children's inputs and puts it back on restore.
 */

/** The actor that invoked (or spawned) `actor`, if any. */
export function parentOf(actor: AnyActorRef): AnyActorRef | undefined {
  return actor._parent;
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
export interface PersistedChild {
  snapshot?: { status?: string; input?: Record<string, unknown> };
  src?: unknown;
  syncSnapshot?: boolean;
}
