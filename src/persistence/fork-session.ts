import { generateId, type ModelMessage } from 'ai';
import { checkRestorable } from './checkpoint-snapshot.js';
import { replaySession } from './session-replay.js';
import { sessionHeader, type SessionStore } from './session-store.js';

/** The checkpoint state in which the history ends in tool calls still waiting for their results. */
const AWAITING_APPROVAL = 'running.awaitingApproval';

/**
 * Starts a new session from a checkpoint of another: the history as it was
 * there and the machine's state at that boundary. The original session is
 * not touched. Resume the fork with `createAgent({ store, sessionId })`.
 *
 * `messages` join the fork's history at that point: the fork's model sees them at its next call
 * (a correction, a changed request). A checkpoint that waits for approvals cannot take them: its
 * history ends in tool calls whose results must come next.
 *
 * @example
 * ```ts
 * const [, second] = agent.checkpoints();
 * const forkId = await forkSession({ store, from: agent.sessionId!, at: second!.id });
 * const fork = createAgent({ model, tools, store, sessionId: forkId });
 * await fork.resume();
 * ```
 * @returns the new session's id.
 * @throws Error when there is no such session or checkpoint, or `messages` are given at a checkpoint that waits for approvals.
 * @throws SessionFormatError when this loopchart cannot restore the checkpoint (`checkRestorable`): the fork could never open, so none is made.
 */
export async function forkSession(options: { store: SessionStore; from: string; at: number; sessionId?: string; messages?: ModelMessage[] }): Promise<string> {
  const { store, from, at } = options;
  const log = await store.read(from);
  if (!log) throw new Error(`forkSession: there is no session "${from}"`);
  const replayed = replaySession(log.records, at, `session ${from}`);
  const checkpoint = replayed.last!;
  checkRestorable(checkpoint.snapshot, from, at, checkpoint.state);
  const added = options.messages ?? [];
  if (added.length > 0 && checkpoint.state === AWAITING_APPROVAL) {
    throw new Error(`forkSession: checkpoint ${at} of session "${from}" waits for approvals: its history ends in tool calls whose results must come next, so no message can be added there`);
  }
  const sessionId = options.sessionId ?? generateId();
  await store.create(sessionHeader(sessionId, { sessionId: from, checkpoint: at }));
  await store.append(sessionId, [
    { type: 'history', messages: [...replayed.messages, ...added] },
    { ...checkpoint, id: 1, at: new Date().toISOString(), messageCount: checkpoint.messageCount + added.length },
  ]);
  return sessionId;
}
