import type { ModelMessage } from 'ai';
import { MessageHistory } from '../core/message-history.js';
import type { AgentMachine } from './agent-machine.js';

/**
 * Makes `machine` restore a persisted snapshot whose history is an array — what `JSON.stringify`
 * writes of a `MessageHistory` — into a `MessageHistory`, so that a snapshot saved as JSON and given
 * back to `createActor(machine, { snapshot })` runs as the one it was taken from. XState restores
 * the context as it is given; `restoreSnapshot` is the actor logic's own (public) step for that.
 */
export function restoringHistory(machine: AgentMachine): AgentMachine {
  const restore = machine.restoreSnapshot.bind(machine);
  machine.restoreSnapshot = (snapshot, actorScope) => {
    const context = (snapshot as { context?: { messages?: unknown } }).context;
    const messages = context?.messages;
    if (!Array.isArray(messages)) return restore(snapshot, actorScope);
    return restore({ ...snapshot, context: { ...context, messages: MessageHistory.from(messages as ModelMessage[]) } } as unknown as typeof snapshot, actorScope);
  };
  return machine;
}
