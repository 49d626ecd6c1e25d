import type { ModelMessage } from 'ai';
import { pendingApprovals, type PendingApproval } from '../machine/approval-updates.js';
import type { AgentContext } from '../machine/context.js';
import { replaySession } from './session-replay.js';
import type { SessionStore } from './session-store.js';

/** A stored session as a reader sees it, without opening it (no agent, no lease). */
export interface SessionView {
  /** The history as of the last checkpoint. */
  messages: ModelMessage[];
  /** True while a run is in progress (or was, when its worker died and nobody took it over yet). */
  isRunning: boolean;
  /** The calls that wait for a person's answer. */
  pendingApprovals: PendingApproval[];
}

/**
 * Reads what a stored session holds, for a node that shows sessions but does not run them (a web
 * node in front of workers). Undefined when there is no such session.
 *
 * @example
 * ```ts
 * const view = await readSessionView(store, 'chat-42');
 * console.log(view?.isRunning, view?.pendingApprovals.map((call) => call.toolName));
 * ```
 */
export async function readSessionView(store: SessionStore, sessionId: string): Promise<SessionView | undefined> {
  const log = await store.read(sessionId);
  if (!log) return undefined;
  const { messages, last } = replaySession(log.records, undefined, `session ${sessionId}`);
  const context = (last?.snapshot as { context?: AgentContext } | undefined)?.context;
  return {
    messages,
    isRunning: last !== undefined && last.state !== 'idle',
    pendingApprovals: context && last?.state === 'running.awaitingApproval' ? pendingApprovals(context) : [],
  };
}
