import type { Actor } from 'xstate';
import type { AgentMachine } from '../machine/agent-machine.js';
import { llmInput, TOOL_RUNNER_ID } from '../machine/agent-setup.js';
import type { AgentContext } from '../machine/context.js';
import { sharedAgentMachine } from '../machine/shared-agent-machine.js';
import { stateName } from '../machine/state-name.js';
import { errorMessage } from '../core/error-message.js';
import { MessageHistory, type MessageList } from '../core/message-history.js';
import { SessionFormatError } from './session-store.js';
import { persistedContextProblems } from './persisted-context-schema.js';
import { hasPersistedChild, withChildInputs, withPersistedChild, type WithPersistedChildren } from '../machine/xstate-internals.js';

interface PersistedAgentSnapshot extends WithPersistedChildren {
  value: unknown;
  context: AgentContext;
}

/**
 * The persisted snapshot without the history: the session's message records
 * hold it, so a checkpoint costs the same at 10 messages as at 10,000. Child
 * inputs that carry the history lose it too; {@link restoreSnapshot} puts it back.
 */
export function checkpointSnapshot(persisted: unknown): unknown {
  const snapshot = withChildInputs(persisted as PersistedAgentSnapshot, (input) => ('messages' in input ? { ...input, messages: [] } : input));
  return { ...snapshot, context: { ...snapshot.context, messages: MessageHistory.empty } };
}

/**
 * The actor's persisted snapshot, taken without the history: the history is in the session's
 * message records, and a `MessageHistory` left in would be written whole (its `toJSON`) into every
 * checkpoint. (When the history was an array, XState's `getPersistedSnapshot` also walked every
 * message part looking for actor references: milliseconds per boundary at 10,000 messages.)
 */
export function persistedWithoutHistory(actor: Actor<AgentMachine>): unknown {
  const snapshot = actor.getSnapshot();
  return checkpointSnapshot(actor.logic.getPersistedSnapshot({ ...snapshot, context: { ...snapshot.context, messages: MessageHistory.empty } }));
}

/**
 * A checkpoint's snapshot with the history put back, ready for `createActor(machine, { snapshot })`.
 * A checkpoint taken mid-run before the run had one tool runner (sessions written until 2026-11-25,
 * when each tool step started its own) gets the run's runner: XState restores the children a
 * snapshot names and starts no other.
 */
export function restoreSnapshot(stored: unknown, messages: MessageList, config: AgentContext['config']): unknown {
  const snapshot = stored as PersistedAgentSnapshot;
  const context: AgentContext = { ...snapshot.context, messages: MessageHistory.from(messages), config };
  const { run } = context;
  if (run === undefined) return { ...snapshot, context };
  const restored = withChildInputs({ ...snapshot, context }, (input, id) => (id === 'llm' ? { ...llmInput(context) } : input));
  return hasPersistedChild(restored, TOOL_RUNNER_ID) ? restored : withPersistedChild(restored, TOOL_RUNNER_ID, 'tools', { runId: run.id });
}

/**
 * That a stored checkpoint's snapshot is one this loopchart's chart can restore: its state is one
 * the chart has and the one the checkpoint is recorded in (`recordedState`, which decides how the
 * session opens: idle, waiting or running), each child it names runs an actor the chart invokes,
 * and its context has the shape the chart reads (`persistedContextSchema`, with a run in any
 * state but `idle`). XState throws on an unknown state or child only once the run chart starts,
 * where the session would lose the history it read, and a context of another shape or another
 * recorded state fails later still (a `TypeError` in an action, a run that never ends, a
 * `resume()` that finds nothing to resume while the chart waits); a checkpoint another version of
 * loopchart or a hand wrote is refused as the session opens instead.
 * @throws SessionFormatError naming the session, the checkpoint and what the chart lacks (for the context: each field that does not fit).
 */
export function checkRestorable(stored: unknown, sessionId: string, checkpointId: number, recordedState: string): void {
  const snapshot = stored as WithPersistedChildren & { value: unknown; context?: unknown };
  const refuse = (problem: string) =>
    new SessionFormatError(
      `session ${sessionId}: checkpoint ${checkpointId}'s snapshot cannot be restored: ${problem}: the session was written by another version of loopchart, or changed by hand`,
    );
  let withinRun: boolean;
  try {
    withinRun = sharedAgentMachine.resolveState({ value: snapshot.value as never, context: {} as never }).matches('running');
  } catch (error) {
    throw refuse(`its state ${JSON.stringify(snapshot.value)?.slice(0, 200)} is not one this loopchart's chart has (${errorMessage(error)})`);
  }
  if (stateName(snapshot.value) !== recordedState) {
    throw refuse(`the checkpoint is recorded in state ${JSON.stringify(recordedState).slice(0, 80)}, but its snapshot is in ${stateName(snapshot.value)}`);
  }
  const invoked = Object.keys(sharedAgentMachine.implementations.actors);
  for (const [id, child] of Object.entries(snapshot.children ?? {})) {
    const src = (child as { src?: unknown } | undefined)?.src;
    if (typeof src !== 'string' || !invoked.includes(src)) {
      throw refuse(`its child ${JSON.stringify(id)} runs ${JSON.stringify(src)?.slice(0, 80)}, which this loopchart's chart does not invoke (${invoked.join(', ')})`);
    }
  }
  const problems = persistedContextProblems(snapshot.context, withinRun);
  if (problems.length > 0) throw refuse(`its context does not have the shape this loopchart's chart reads: ${problems.join('; ')}`);
}
