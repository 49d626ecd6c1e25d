import { jsonExcerpt } from '../core/json-excerpt.js';
import type { ModelMessage } from 'ai';
import { applyPruning } from '../context/prune-tool-outputs.js';
import { persistedContextSchema } from '../persistence/persisted-context-schema.js';
import { replaySession } from '../persistence/session-replay.js';
import { SessionFormatError, type SessionLog } from '../persistence/session-store.js';
import type { SessionRecordView } from './session-record.js';

/**
 * The messages the model would see at one point of a run: the history as of the last checkpoint
 * at or before the point (a compaction's summary replaces what it summarised), with the tool
 * outputs that were pruned from the model's view at that checkpoint shown as pruned. Pure, over
 * the session's log (`store.read`) and its view (`openSessionRecord`).
 *
 * Messages are written at checkpoints, so between two checkpoints the context is that of the
 * earlier one. A point before the session's first checkpoint has an empty context.
 *
 * @example
 * ```ts
 * import { contextAt, fileStore, openSessionRecord } from 'loopchart';
 *
 * const store = fileStore('.sessions');
 * const [log, view] = await Promise.all([store.read('chat-42'), openSessionRecord(store, 'chat-42')]);
 * if (log && view) console.log(contextAt(log, view, 0, 5).length, 'messages at the sixth point of the first run');
 * ```
 * @throws RangeError for a run or point the view does not have.
 * @throws SessionFormatError when the checkpoint's pruned tool call ids are not a list of ids.
 */
export function contextAt(log: SessionLog, view: SessionRecordView, runIndex: number, pointIndex: number): ModelMessage[] {
  const checkpoint = checkpointAt(view, runIndex, pointIndex);
  if (checkpoint === undefined) return [];
  const { messages, last } = replaySession(log.records, checkpoint, `session ${log.header.sessionId}`);
  const stored = (last?.snapshot as { context?: { prunedToolCallIds?: unknown } } | undefined)?.context?.prunedToolCallIds ?? [];
  const pruned = persistedContextSchema.shape.prunedToolCallIds.safeParse(stored);
  if (!pruned.success) {
    throw new SessionFormatError(
      `session ${log.header.sessionId}: checkpoint ${last!.id}'s context.prunedToolCallIds is not a list of tool call ids, but ${jsonExcerpt(stored, 60)}: the session was written by another version of loopchart, or changed by hand`,
    );
  }
  return applyPruning(messages, pruned.data);
}

/** The id of the last checkpoint at or before the point, or undefined when there is none. */
export function checkpointAt(view: SessionRecordView, runIndex: number, pointIndex: number): number | undefined {
  const run = view.runs[runIndex];
  if (!run) throw new RangeError(`contextAt: the session has ${view.runs.length} runs, there is no run ${runIndex}`);
  if (!Number.isInteger(pointIndex) || pointIndex < 0 || pointIndex >= run.timeline.length) {
    throw new RangeError(`contextAt: run ${runIndex} has ${run.timeline.length} points, there is no point ${pointIndex}`);
  }
  for (let index = pointIndex; index >= 0; index--) {
    const id = run.timeline[index]!.checkpointId;
    if (id !== undefined) return id;
  }
  // Before the run's first checkpoint: the last checkpoint of the session before it.
  const first = view.checkpoints.findIndex((checkpoint) => checkpoint.runId === run.runId);
  const before = first < 0 ? undefined : view.checkpoints[first - 1];
  return before?.id;
}
