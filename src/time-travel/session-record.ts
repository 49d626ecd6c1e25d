import type { SessionStore } from '../persistence/session-store.js';
import type { SessionRecordView } from './record-types.js';
import { sessionRecordView } from './session-record-view.js';

export type { SessionRecordView, CheckpointSummary, RecordedRun, TimelinePoint, ModelCallRecord } from './record-types.js';

/**
 * Reads a session from any store as a step-through view needs it: its runs with their
 * transitions, traces and model calls, and its checkpoints. Sessions written before the timeline
 * was kept open too: their runs get one point per checkpoint, and a warning says so.
 * Secrets are as redacted as the store wrote them.
 *
 * @example
 * ```ts
 * import { fileStore, openSessionRecord } from 'loopchart';
 *
 * const view = await openSessionRecord(fileStore('.sessions'), 'chat-42');
 * for (const run of view?.runs ?? []) {
 *   for (const point of run.timeline) console.log(point.step, point.event, `${point.from} → ${point.to}`);
 * }
 * ```
 * @returns the view, or undefined when there is no such session.
 * @throws SessionFormatError for a session the store cannot read.
 */
export async function openSessionRecord(store: SessionStore, sessionId: string): Promise<SessionRecordView | undefined> {
  const log = await store.read(sessionId);
  // The id it was read by: a renamed or copied file's header names the old one (the store warns of it).
  return log ? { ...sessionRecordView(log), sessionId } : undefined;
}
