import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyActorRef } from 'xstate';
import type { AgentEvent } from '../events.js';

/** Where a tool call runs: its actor, how deep in a tree of sub-agents, and how to report a child's events. */
export interface ToolScope {
  /** The tool runner executing the call; a sub-agent's actor becomes its child. */
  actor: AnyActorRef;
  /** 0 for the tools of a top-level agent, 1 for a sub-agent's tools, … */
  depth: number;
  toolCallId: string;
  /** Reports an event of a sub-agent on the calling agent's `events$`. */
  report(event: AgentEvent): void;
}

/** Set by the tool runner around `execute`, read by `agentTool`. */
export const toolScope = new AsyncLocalStorage<ToolScope>();
