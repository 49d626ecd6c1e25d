import type { AgentEvent } from '../core/events.js';

/**
 * A sub-agent's event as the calling agent reports it: wrapped with the path
 * of tool calls that lead to it. A grandchild's event, already wrapped by the
 * child, gets the child's call prepended to its path instead of a second wrapper.
 */
export function asSubagentEvent(
  event: AgentEvent,
  caller: { runId: string; step: number; toolCallId: string; toolName: string },
): AgentEvent {
  const { runId, step, toolCallId, toolName } = caller;
  if (event.type === 'subagent') return { ...event, runId, step, path: [toolCallId, ...event.path] };
  return { type: 'subagent', runId, step, path: [toolCallId], toolName, event };
}
