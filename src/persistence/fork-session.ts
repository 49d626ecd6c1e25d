import { generateId, type ModelMessage } from 'ai';
import { z } from 'zod';
import { checkRestorable } from './checkpoint-snapshot.js';
import { replaySession } from './session-replay.js';
import { errorMessage } from '../core/error-message.js';
import { modelMessageSchema } from './session-record-check.js';
import { sessionHeader, type SessionStore } from './session-store.js';
import { parseOptions } from '../core/options-check.js';

/** The checkpoint state in which the history ends in tool calls still waiting for their results. */
const AWAITING_APPROVAL = 'running.awaitingApproval';

/** The options `forkSession` takes; `at` and `messages` have checks of their own, whose messages say what they are. */
const forkSessionOptionsKeys = z.strictObject({ store: z.unknown().optional(), from: z.string().min(1), at: z.unknown().optional(), sessionId: z.string().min(1).optional(), messages: z.unknown().optional() });

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
 * @throws TypeError, before anything is read or written, when `at` is no whole number 1 or more or
 * `messages` are no model messages.
 * @throws Error when there is no such session or checkpoint, or `messages` are given at a checkpoint that waits for approvals.
 * @throws SessionFormatError when this loopchart cannot restore the checkpoint (`checkRestorable`): the fork could never open, so none is made.
 */
export async function forkSession(options: { store: SessionStore; from: string; at: number; sessionId?: string; messages?: ModelMessage[] }): Promise<string> {
  parseOptions('forkSession', forkSessionOptionsKeys, options);
  const { store, from, at } = options;
  // Checked before anything is read or written: a string or no `at` would fork at no checkpoint or the last, a bad message a session nothing opens.
  if (!Number.isSafeInteger(at) || at < 1) {
    throw new TypeError(`forkSession: at must be a checkpoint id, a whole number 1 or more (agent.checkpoints() lists a session's), not ${typeof at === 'string' ? `${JSON.stringify(at)} (a string)` : String(at)}`);
  }
  const added = checkedMessages(options.messages);
  const log = await store.read(from);
  if (!log) throw new Error(`forkSession: there is no session "${from}"`);
  const replayed = replaySession(log.records, at, `session ${from}`);
  const checkpoint = replayed.last!;
  checkRestorable(checkpoint.snapshot, from, at, checkpoint.state);
  if (added.length > 0 && checkpoint.state === AWAITING_APPROVAL) {
    throw new Error(`forkSession: checkpoint ${at} of session "${from}" waits for approvals: its history ends in tool calls whose results must come next, so no message can be added there`);
  }
  const sessionId = options.sessionId ?? generateId();
  await createOrFinish(store, sessionId, { sessionId: from, checkpoint: at });
  try {
    await store.append(sessionId, [
      { type: 'history', messages: [...replayed.messages, ...added] },
      { ...checkpoint, id: 1, at: new Date().toISOString(), messageCount: checkpoint.messageCount + added.length },
    ]);
  } catch (error) {
    // The store has no way to take the header back: the session stays, refused at open, until a second call finishes it.
    throw new Error(`forkSession: session ${sessionId} was created but its records could not be written (${errorMessage(error)}): call forkSession again with sessionId "${JSON.stringify(sessionId).slice(1, -1)}" to finish it`, {
      cause: error,
    });
  }
  return sessionId;
}

/**
 * Creates the fork's session; or, when one by that id exists already as the same fork with no records
 * (an earlier call created it and could not write them), takes it as it is, so that this call finishes
 * it. Any other existing session is refused as `create` refuses it.
 */
async function createOrFinish(store: SessionStore, sessionId: string, forkedFrom: { sessionId: string; checkpoint: number }): Promise<void> {
  try {
    await store.create(sessionHeader(sessionId, forkedFrom));
  } catch (error) {
    const existing = await store.read(sessionId).catch(() => undefined);
    const unfinished = existing !== undefined && existing.records.length === 0 && existing.header.forkedFrom?.sessionId === forkedFrom.sessionId && existing.header.forkedFrom.checkpoint === forkedFrom.checkpoint;
    if (!unfinished) throw error;
  }
}

/** The `messages` option, refused with each message that is no model message. */
function checkedMessages(messages: unknown): ModelMessage[] {
  if (messages === undefined) return [];
  if (!Array.isArray(messages)) throw new TypeError(`forkSession: messages must be a list of model messages ({ role: 'user', content: '…' }), not ${typeof messages}`);
  const checked = z.array(modelMessageSchema).safeParse(messages);
  if (!checked.success) {
    throw new TypeError(`forkSession: ${checked.error.issues.map((issue) => `messages.${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return messages as ModelMessage[];
}
