import type { Agent, AgentEvent } from '../../src/index.js';

/** The agent's next event of `type`, from now on. */
export function nextEvent<T extends AgentEvent['type']>(agent: Agent, type: T): Promise<Extract<AgentEvent, { type: T }>> {
  return new Promise((resolve) => {
    const subscription = agent.events$.subscribe((event) => {
      if (event.type === type) {
        subscription.unsubscribe();
        resolve(event as Extract<AgentEvent, { type: T }>);
      }
    });
  });
}
