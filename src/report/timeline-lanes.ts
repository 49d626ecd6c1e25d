import type { MachineGraph } from '../machine/machine-graph.js';
import type { RunTrace } from '../core/run-trace.js';
import { formatDuration, formatOffset } from './format-duration.js';

/** What a bar stands for; the report colours bars by it. */
export type BarKind = 'llm' | 'tool' | 'tool-error' | 'retry' | 'approval' | 'compaction' | 'transient' | 'other';

/** One interval on the timeline, in milliseconds from the run's start. */
export interface TimelineBar {
  start: number;
  end: number;
  kind: BarKind;
  /** The hover text. */
  title: string;
}

export interface TimelineLane {
  label: string;
  /** The state a state lane shows. */
  state?: string;
  bars: TimelineBar[];
}

export interface Timeline {
  /** The time the axis spans: the run's duration, or the latest end of anything in it. */
  totalMs: number;
  lanes: TimelineLane[];
}

const STATE_KINDS: Record<string, BarKind> = {
  calling: 'llm',
  streaming: 'llm',
  llm: 'llm',
  toolExec: 'tool',
  retrying: 'retry',
  approving: 'approval',
  awaitingApproval: 'approval',
  compacting: 'compaction',
};

function stateKind(state: string, transient: boolean): BarKind {
  if (transient) return 'transient';
  return STATE_KINDS[state.split('.').at(-1) ?? ''] ?? 'other';
}

const span = (start: number, end: number) => `${formatOffset(start)} → ${formatOffset(end)} (${formatDuration(end - start)})`;

/**
 * The run over time: a lane per state it visited (in the statechart's order),
 * with a bar per visit, then a lane of LLM calls, one bar per step, and lanes
 * of tool calls, packed so that calls running at the same time get a lane each.
 *
 * @example
 * timelineLanes(trace, graph).lanes.map((lane) => lane.label) // ['idle', 'running.nextStep', …, 'LLM calls', 'tools']
 */
export function timelineLanes(trace: RunTrace, graph: MachineGraph): Timeline {
  const order = new Map(graph.nodes.map((node, index) => [node.id, index]));
  const transient = new Set(graph.nodes.filter((node) => node.transient).map((node) => node.id));
  let totalMs = Math.max(0, trace.durationMs);
  const grow = (end: number) => (totalMs = Math.max(totalMs, end));

  const stateLanes = new Map<string, TimelineLane>();
  for (const visit of trace.states) {
    let lane = stateLanes.get(visit.state);
    if (!lane) stateLanes.set(visit.state, (lane = { label: visit.state, state: visit.state, bars: [] }));
    lane.bars.push({ start: visit.enteredAt, end: visit.leftAt, kind: stateKind(visit.state, transient.has(visit.state)), title: `${visit.state} · ${span(visit.enteredAt, visit.leftAt)}` });
    grow(visit.leftAt);
  }
  const appearance = [...stateLanes.keys()];
  const rank = (state: string) => order.get(state) ?? graph.nodes.length + appearance.indexOf(state);
  const lanes = [...stateLanes.values()].sort((a, b) => rank(a.state!) - rank(b.state!));

  if (trace.steps.length > 0) {
    lanes.push({
      label: 'LLM calls',
      bars: trace.steps.map((step) => {
        // The bar is the model's time only: a step's tools (and retry waits, approvals) have lanes of their own.
        const end = step.modelEndedAt ?? step.startedAt + (step.durationMs ?? Math.max(0, totalMs - step.startedAt));
        grow(end);
        const details = [
          step.modelMs !== undefined ? `model ${formatDuration(step.modelMs)}` : '',
          step.attempts > 1 ? `${step.attempts} attempts` : '',
          step.firstChunkMs !== undefined ? `first chunk after ${formatDuration(step.firstChunkMs)}` : '',
          step.finishReason ?? 'unfinished',
        ].filter(Boolean);
        return { start: step.startedAt, end, kind: 'llm' as const, title: `step ${step.step} · ${span(step.startedAt, end)} · ${details.join(' · ')}` };
      }),
    });
  }

  const toolBars = trace.steps.flatMap((step) =>
    step.toolCalls.map((call): TimelineBar => {
      const end = call.startedAt + (call.durationMs ?? Math.max(0, totalMs - call.startedAt));
      grow(end);
      const outcome = call.durationMs === undefined ? 'no result' : call.isError ? 'error' : 'ok';
      return { start: call.startedAt, end, kind: call.isError ? 'tool-error' : 'tool', title: `${call.toolName} (step ${step.step}) · ${span(call.startedAt, end)} · ${outcome}` };
    }),
  );
  packBars(toolBars).forEach((bars, index) => lanes.push({ label: index === 0 ? 'tools' : '', bars }));
  return { totalMs, lanes };
}

/**
 * Intervals packed into as few rows as possible without overlap, first fit
 * in order of start.
 *
 * @example
 * packBars([{ start: 0, end: 10 }, { start: 5, end: 8 }, { start: 10, end: 12 }]) // [[0–10, 10–12], [5–8]]
 */
export function packBars<Bar extends { start: number; end: number }>(bars: readonly Bar[]): Bar[][] {
  const rows: Bar[][] = [];
  for (const bar of [...bars].sort((a, b) => a.start - b.start)) {
    const row = rows.find((candidate) => candidate.at(-1)!.end <= bar.start);
    if (row) row.push(bar);
    else rows.push([bar]);
  }
  return rows;
}
