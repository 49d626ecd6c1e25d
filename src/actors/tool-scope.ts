import type { AnyActorRef } from 'xstate';
import type { AgentEvent } from '../core/events.js';

/** Where a tool call runs: the actor its sub-agents live under, how deep in a tree of sub-agents, and how to report a child's events. */
export interface ToolScope {
  /** The parent of a sub-agent's actor: the calling agent's session (the tool runner where there is none). */
  actor: AnyActorRef;
  /** Keeps the calling agent's session from closing until `ending` (a sub-agent, disposed when it ends) settles. */
  hold(ending: Promise<unknown>): void;
  /** 0 for the tools of a top-level agent, 1 for a sub-agent's tools, … */
  depth: number;
  toolCallId: string;
  /** Reports an event of a sub-agent on the calling agent's `events$`. */
  report(event: AgentEvent): void;
  /** Whether anything hears what `report` reports: a subscriber to the calling agent's `events$`. */
  isHeard(): boolean;
}

/**
 * The key under which the tool runner puts a call's scope on the options `execute` gets.
 * It travels with the options object (a spread copy keeps it), not in an AsyncLocalStorage:
 * on Node 20 a first `AsyncLocalStorage.run` turns on a hook for every promise of the process.
 */
const TOOL_SCOPE = Symbol.for('loopchart.toolScope');

type ScopedOptions = { [TOOL_SCOPE]?: ToolScope };

/** The execution options of a tool call, carrying its scope. */
export function withToolScope<T extends object>(options: T, scope: ToolScope): T {
  // Set in place, as Object.assign would, without its source object: every tool call does this.
  (options as ScopedOptions)[TOOL_SCOPE] = scope;
  return options;
}

/** The scope the tool runner gave a call, if these options came from it (read by `agentTool`). */
export function toolScopeOf(options: object | undefined): ToolScope | undefined {
  return (options as ScopedOptions | undefined)?.[TOOL_SCOPE];
}
