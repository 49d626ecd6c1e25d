import { fromCallback, fromPromise, type AnyActorRef, type EventObject, type NonReducibleUnknown } from 'xstate';
import { callbackOf, parentOf, promiseCreatorOf } from './machine/xstate-internals.js';
import type { agentImplementations } from './machine/implementations.js';
import { agentMachine, type AgentMachine } from './machine/agent-machine.js';

type AgentActors = ReturnType<typeof agentImplementations>['actors'];

/** The implementations of each running agent actor (built on first use), found by its invoked children through their parent. */
const implementationsByActor = new WeakMap<AnyActorRef, () => AgentActors>();

/**
 * Binds an agent actor to its own implementations (model, tools, hooks, approval policy) before
 * it starts: the machine definition is shared by every agent, and its actors look up the
 * implementations of the agent that invoked them.
 */
export function bindImplementations(actor: AnyActorRef, actors: () => AgentActors): void {
  implementationsByActor.set(actor, actors);
}

function implementationsOf(child: AnyActorRef): AgentActors {
  const agent = parentOf(child);
  const actors = agent ? implementationsByActor.get(agent)?.() : undefined;
  if (!actors) throw new Error('loopchart: an agent actor started without its implementations (use createAgent, or bindImplementations before start)');
  return actors;
}

type ActorName = keyof AgentActors;

/** A callback actor that runs the callback of the invoking agent's own implementation. */
function delegatingCallback(name: ActorName) {
  return fromCallback<EventObject, NonReducibleUnknown, EventObject>((args) => {
    return callbackOf(implementationsOf(args.self)[name])(args);
  });
}

/** A promise actor that runs the promise creator of the invoking agent's own implementation. */
function delegatingPromise(name: ActorName) {
  return fromPromise<unknown, NonReducibleUnknown>((args) => {
    return promiseCreatorOf(implementationsOf(args.self)[name])(args);
  });
}

/**
 * One machine definition for every agent. `agentMachine.provide()` per agent copied the whole
 * state-node tree (most of an idle agent's memory and of `createAgent`'s time); here the
 * provided actors are the same for all, and each delegates to the implementations bound to the
 * agent actor that invoked it. The persisted snapshot is unchanged: only serialisable input
 * reaches the actors.
 */
export const sharedAgentMachine: AgentMachine = agentMachine.provide({
  actors: {
    prepare: delegatingCallback('prepare'),
    llm: delegatingCallback('llm'),
    tools: delegatingCallback('tools'),
    approval: delegatingPromise('approval'),
    compaction: delegatingPromise('compaction'),
    stopCondition: delegatingPromise('stopCondition'),
  } as unknown as Parameters<AgentMachine['provide']>[0]['actors'],
});
