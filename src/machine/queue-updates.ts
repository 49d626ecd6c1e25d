import type { ModelMessage } from 'ai';
import type { AgentEvent } from '../core/events.js';
import type { AgentContext } from './context.js';
import type { Update } from './update.js';

export function enqueueSteering(context: AgentContext, message: ModelMessage): Update {
  return { context: { ...context, queues: { ...context.queues, steering: [...context.queues.steering, message] } }, events: [] };
}

export function enqueueFollowUp(context: AgentContext, message: ModelMessage): Update {
  return { context: { ...context, queues: { ...context.queues, followUps: [...context.queues.followUps, message] } }, events: [] };
}

function take(queue: ModelMessage[], mode: 'one-at-a-time' | 'all'): [ModelMessage[], ModelMessage[]] {
  const count = mode === 'all' ? queue.length : Math.min(1, queue.length);
  return [queue.slice(0, count), queue.slice(count)];
}

/** Appends queued steering messages (one or all, by `steeringMode`) to the history. */
export function deliverSteering(context: AgentContext, runId: string): Update {
  // Asked at every step boundary, where the queue is mostly empty.
  if (context.queues.steering.length === 0) return { context, events: [] };
  const [delivered, steering] = take(context.queues.steering, context.config.steeringMode);
  return append(context, runId, delivered, { ...context.queues, steering });
}

/**
 * At a run's would-be end: steering first (it arrived during the run), else
 * follow-ups (one or all, by `followUpMode`).
 */
export function deliverQueued(context: AgentContext, runId: string): Update {
  if (context.queues.steering.length > 0) return deliverSteering(context, runId);
  const [delivered, followUps] = take(context.queues.followUps, context.config.followUpMode);
  return append(context, runId, delivered, { ...context.queues, followUps });
}

function append(context: AgentContext, runId: string, delivered: ModelMessage[], queues: AgentContext['queues']): Update {
  if (delivered.length === 0) return { context, events: [] };
  return {
    context: { ...context, messages: context.messages.append(...delivered), queues },
    events: delivered.map((message): AgentEvent => ({ type: 'message', runId, message })),
  };
}

export function hasQueuedMessages(context: AgentContext): boolean {
  return context.queues.steering.length > 0 || context.queues.followUps.length > 0;
}
