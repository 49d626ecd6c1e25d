import { fromCallback, fromPromise, type AnyActorLogic, type AnyActorRef, type EventObject, type NonReducibleUnknown } from 'xstate';
import { callbackOf, parentOf, promiseCreatorOf } from './xstate-internals.js';
import type { agentImplementations } from './implementations.js';
import { agentMachine, type AgentMachine } from './agent-machine.js';
import { restoringHistory } from './history-restore.js';

/** What `agentImplementations` returns: the actors that bind the machine to a model, tools and policies. */
export type AgentImplementations = ReturnType<typeof agentImplementations>;
type AgentActors = AgentImplementations['actors'];

/** The implementations of each agent actor (built on first use), found by its invoked children through their parent. */
const implementationsByActor = new WeakMap<AnyActorRef, () => AgentImplementations>();

/**
 * The one way to give an agent actor its model, tools, hooks and policies: bind them to the actor
 * before it starts. The machine definition (`agentMachine` of `loopchart/machine`) is shared by
 * every agent and never copied; its actors look up the implementations of the agent that invoked
 * them. `implementations` may be a function, called when the actor first invokes one (an idle
 * agent never builds them). `createAgent` does this for you.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { agentImplementations, agentMachine, bindImplementations } from 'loopchart/machine';
 *
 * const actor = createActor(agentMachine, { input: { config: { maxSteps: 10 } } });
 * bindImplementations(actor, agentImplementations({ model, tools }));
 * actor.start();
 * ```
 */
export function bindImplementations(actor: AnyActorRef, implementations: AgentImplementations | (() => AgentImplementations)): void {
  implementationsByActor.set(actor, typeof implementations === 'function' ? implementations : () => implementations);
}

/** The invoking agent's own actor `name`, or the machine's placeholder (which says how to bind one) when none is bound. */
function implementationOf(child: AnyActorRef, name: ActorName): AnyActorLogic {
  const agent = parentOf(child);
  const bound = agent ? implementationsByActor.get(agent)?.().actors[name] : undefined;
  return bound ?? (agentMachine.implementations.actors[name] as AnyActorLogic);
}

type ActorName = keyof AgentActors;

/** A callback actor that runs the callback of the invoking agent's own implementation. */
function delegatingCallback(name: ActorName) {
  return fromCallback<EventObject, NonReducibleUnknown, EventObject>((args) => {
    return callbackOf(implementationOf(args.self, name))(args);
  });
}

/** A promise actor that runs the promise creator of the invoking agent's own implementation. */
function delegatingPromise(name: ActorName) {
  return fromPromise<unknown, NonReducibleUnknown>((args) => {
    return promiseCreatorOf(implementationOf(args.self, name))(args);
  });
}

/**
 * One machine definition for every agent, published as `agentMachine` in `loopchart/machine`.
 * `agentMachine.provide()` per agent copied the whole state-node tree (most of an idle agent's
 * memory and of `createAgent`'s time); here the provided actors are the same for all, and each
 * delegates to the implementations bound to the agent actor that invoked it
 * ({@link bindImplementations}). The persisted snapshot is unchanged: only serialisable input
 * reaches the actors.
 */
export const sharedAgentMachine: AgentMachine = restoringHistory(agentMachine.provide({
  actors: {
    prepare: delegatingCallback('prepare'),
    llm: delegatingCallback('llm'),
    tools: delegatingCallback('tools'),
    approval: delegatingPromise('approval'),
    compaction: delegatingPromise('compaction'),
    stopCondition: delegatingPromise('stopCondition'),
  } as unknown as Parameters<AgentMachine['provide']>[0]['actors'],
}));
