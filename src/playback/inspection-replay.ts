import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { PROTOCOL_VERSION } from '../inspect/inspection-batch.js';
import type { SessionRecordView } from '../time-travel/session-record.js';

/** `running.llm.calling` → `{ running: { llm: 'calling' } }`, the state value XState would report. */
export function stateValue(path: string): string | Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  return rest.length === 0 ? head! : { [head!]: stateValue(rest.join('.')) };
}

/** What a timeline names a point that no event sent to the machine caused: an eventless transition, or an old session's checkpoint. */
const NOT_RECEIVED = new Set(['always', 'checkpoint']);

/**
 * A session's recorded timeline as the inspection events the Stately inspector takes: the agent
 * actor once (with the machine's definition as a live inspector sends it), then for every point
 * the event the machine took, if it took one, and the snapshot it was left in (its state; the
 * context says which run, step and checkpoint). An eventless transition has no event of its own,
 * as in a live inspector: its snapshot names the event that began the macrostep. The same stream
 * the playback page steps through, so both views show the same moves.
 *
 * @example
 * const events = inspectionReplay(view, machineDefinition(agentMachine.config));
 * events[0].type // '@xstate.actor'
 */
export function inspectionReplay(view: SessionRecordView, definition: string): StatelyInspectionEvent[] {
  const sessionId = `loopchart:${view.sessionId}`;
  let sequence = 0;
  const base = (at: number) => ({ rootId: sessionId, sessionId, createdAt: String(at), id: `${view.sessionId}:${sequence++}`, _version: PROTOCOL_VERSION });
  const firstAt = view.runs[0]?.timeline[0]?.at ?? Date.parse(view.header.createdAt);
  const events: StatelyInspectionEvent[] = [
    { type: '@xstate.actor', name: 'agent', definition, parentId: undefined, snapshot: { status: 'active', value: 'idle', context: {} }, ...base(firstAt) },
  ];
  view.runs.forEach((run, runIndex) => {
    let received: { type: string } | undefined;
    for (const point of run.timeline) {
      if (!NOT_RECEIVED.has(point.event)) {
        received = { type: point.event };
        events.push({ type: '@xstate.event', event: received, sourceId: undefined, ...base(point.at) });
      }
      // What the inspector reads of a machine snapshot (its value and context), which XState's Snapshot type does not name.
      const snapshot = {
        status: 'active' as const,
        output: undefined,
        error: undefined,
        value: stateValue(point.to),
        context: { run: runIndex + 1, runId: run.runId, step: point.step, ...(point.checkpointId !== undefined ? { checkpoint: point.checkpointId } : {}) },
      };
      events.push({ type: '@xstate.snapshot', event: received ?? { type: point.event }, snapshot, ...base(point.at) });
    }
  });
  return events;
}
