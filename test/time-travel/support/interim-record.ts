/**
 * A stand-in for tt-record's `openSessionRecord` and `contextAt`, built from what a run already
 * gives (its trace and the store's checkpoints), so the page can be tested before the recording
 * lands. Removed once `src/time-travel/session-record.ts` is merged.
 */
import type { ModelMessage } from 'ai';
import { replaySession } from '../../../src/persistence/session-replay.js';
import type { SessionLog, SessionStore } from '../../../src/persistence/session-store.js';
import type { RunTrace } from '../../../src/trace/run-trace.js';
import type { ContextAt, OpenSessionRecord, SessionRecordView } from '../../../src/time-travel/playback-source.js';

export function interimRecord(traces: ReadonlyMap<string, RunTrace[]>): { openSessionRecord: OpenSessionRecord; contextAt: ContextAt } {
  const openSessionRecord: OpenSessionRecord = async (store: SessionStore, sessionId: string) => {
    const log = await store.read(sessionId);
    if (!log) return undefined;
    const { checkpoints } = replaySession(log.records);
    const view: SessionRecordView = {
      sessionId,
      header: log.header,
      checkpoints: checkpoints.map(({ snapshot: _, requestIds: __, traceContext: ___, type: ____, ...summary }) => summary),
      warnings: [],
      runs: (traces.get(sessionId) ?? []).map((trace) => ({
        runId: trace.runId,
        trace,
        modelCalls: [],
        timeline: trace.transitions.map((transition, index) => ({
          index,
          at: trace.startedAt + transition.at,
          event: transition.event,
          from: transition.from,
          to: transition.to,
          step: trace.steps.filter((step) => step.startedAt <= transition.at && !(step.startedAt === transition.at && transition.to !== 'running.llm.calling')).length,
        })),
      })),
    };
    return view;
  };
  const contextAt: ContextAt = (log: SessionLog, view, runIndex, pointIndex): ModelMessage[] => {
    const run = view.runs[runIndex]!;
    const point = run.timeline[pointIndex]!;
    const reached = view.checkpoints.filter((checkpoint) => checkpoint.runId === run.runId && checkpoint.step <= point.step).at(-1);
    return reached ? replaySession(log.records, reached.id).messages : [];
  };
  return { openSessionRecord, contextAt };
}
