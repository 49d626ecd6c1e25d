import type { LanguageModelUsage, ModelMessage } from 'ai';
import { emptyUsage, usageFrom } from '../core/usage.js';
import type { CheckpointRecord, ModelCallLogRecord, SessionLog, TimelineRecord } from '../persistence/session-store.js';
import { TRACE_VERSION, type RunTrace, type TraceState, type TraceStep, type TraceTransition } from '../core/run-trace.js';
import { toolOutputPreview } from '../trace/tool-output-preview.js';
import type { CheckpointSummary, ModelCallRecord, RecordedRun, SessionRecordView, TimelinePoint } from './record-types.js';

/** A run as its records are read, before its trace is put together. */
interface RunUnderConstruction {
  runId: string;
  timeline: TimelinePoint[];
  modelCalls: ModelCallRecord[];
  checkpoints: CheckpointSummary[];
  stored?: RunTrace;
  /** The index of the run's last point that no checkpoint has claimed yet. */
  unclaimed?: number;
}

/**
 * The step-through view of a session log, in one pass over its records (pure: `openSessionRecord`
 * reads the log, this makes the view).
 */
export function sessionRecordView(log: SessionLog): SessionRecordView {
  const runs = new Map<string, RunUnderConstruction>();
  const checkpoints: CheckpointSummary[] = [];
  const toolOutputs = new Map<string, unknown>();
  const runOf = (runId: string): RunUnderConstruction => {
    let run = runs.get(runId);
    if (!run) runs.set(runId, (run = { runId, timeline: [], modelCalls: [], checkpoints: [] }));
    return run;
  };
  for (const record of log.records) {
    switch (record.type) {
      case 'message':
        collectToolOutputs(record.message, toolOutputs);
        break;
      case 'history':
        for (const message of record.messages) collectToolOutputs(message, toolOutputs);
        break;
      case 'timeline':
        addPoints(runOf(record.runId), record);
        break;
      case 'model-call':
        runOf(record.runId).modelCalls.push(modelCall(record));
        break;
      case 'trace':
        runOf(record.trace.runId).stored = record.trace;
        break;
      case 'checkpoint': {
        const summary = checkpointSummary(record);
        checkpoints.push(summary);
        if (record.runId === undefined) break;
        const run = runOf(record.runId);
        run.checkpoints.push(summary);
        if (run.unclaimed !== undefined) run.timeline[run.unclaimed]!.checkpointId = record.id;
        run.unclaimed = undefined;
        break;
      }
      default:
        break;
    }
  }
  const warnings = [...log.warnings];
  const recorded = [...runs.values()].map((run) => finishRun(run, toolOutputs, warnings, log.header.version));
  return { sessionId: log.header.sessionId, header: log.header, runs: recorded, checkpoints, warnings };
}

function addPoints(run: RunUnderConstruction, record: TimelineRecord): void {
  for (const [offset, event, from, to, step, guard] of record.points) {
    run.timeline.push({
      index: run.timeline.length,
      at: record.at + offset,
      event,
      from,
      to,
      ...(guard !== undefined ? { guard } : {}),
      step,
    });
  }
  if (record.points.length > 0) run.unclaimed = run.timeline.length - 1;
}

function modelCall(record: ModelCallLogRecord): ModelCallRecord {
  const { type: _type, runId: _runId, ...call } = record;
  return call;
}

function checkpointSummary(record: CheckpointRecord): CheckpointSummary {
  return {
    id: record.id,
    at: Date.parse(record.at),
    state: record.state,
    ...(record.runId !== undefined ? { runId: record.runId } : {}),
    step: record.step,
    messageCount: record.messageCount,
    ...(record.outcome !== undefined ? { outcome: record.outcome } : {}),
  };
}

function collectToolOutputs(message: ModelMessage, into: Map<string, unknown>): void {
  if (message.role !== 'tool') return;
  for (const part of message.content) {
    if (part.type !== 'tool-result') continue;
    const output = part.output as { type: string; value?: unknown };
    into.set(part.toolCallId, 'value' in output ? output.value : output);
  }
}

function finishRun(run: RunUnderConstruction, toolOutputs: Map<string, unknown>, warnings: string[], formatVersion: number): RecordedRun {
  const end = run.checkpoints.find((checkpoint) => checkpoint.outcome !== undefined);
  if (run.timeline.length === 0) {
    run.timeline = checkpointPoints(run.checkpoints);
    warnings.push(
      formatVersion < 2
        ? `no timeline recorded for run ${run.runId} (the session was written before loopchart kept timelines): its points are its checkpoints`
        : `no timeline recorded for run ${run.runId} in this session (it began before the session was forked from another): its points are its checkpoints`,
    );
  }
  const ended = end !== undefined || run.stored !== undefined;
  if (!ended) warnings.push(`run ${run.runId} has not ended in this session (it is still running, or its process stopped): its trace stops at the last point recorded`);
  const trace = run.stored ? storedTrace(run.stored, run.timeline, toolOutputs) : rebuiltTrace(run, end?.outcome);
  return { runId: run.runId, trace, ended, timeline: run.timeline, modelCalls: run.modelCalls };
}

/** A run without a timeline (an older session, or the part of a run before a fork): one point per checkpoint. */
function checkpointPoints(checkpoints: CheckpointSummary[]): TimelinePoint[] {
  return checkpoints.map((checkpoint, index) => ({
    index,
    at: checkpoint.at,
    event: 'checkpoint',
    from: checkpoints[index - 1]?.state ?? 'idle',
    to: checkpoint.state,
    step: checkpoint.step,
    checkpointId: checkpoint.id,
  }));
}

/** The trace as the run's end wrote it, with what the session holds elsewhere put back. */
function storedTrace(stored: RunTrace, timeline: TimelinePoint[], toolOutputs: Map<string, unknown>): RunTrace {
  const steps = stored.steps.map((step) => ({
    ...step,
    toolCalls: step.toolCalls.map((call) =>
      call.outputPreview === undefined && toolOutputs.has(call.toolCallId) ? { ...call, outputPreview: toolOutputPreview(toolOutputs.get(call.toolCallId)) } : call,
    ),
  }));
  return { ...stored, ...statesAndTransitions(timeline, stored.startedAt), steps };
}

/** A trace from the timeline and the model calls, for a run whose end wrote none. */
function rebuiltTrace(run: RunUnderConstruction, outcome: RunTrace['outcome'] | undefined): RunTrace {
  const startedAt = run.timeline[0]?.at ?? run.modelCalls[0]?.startedAt ?? 0;
  const lastAt = run.timeline.at(-1)?.at ?? startedAt;
  const steps = new Map<number, TraceStep>();
  for (const call of run.modelCalls) {
    const step = steps.get(call.step) ?? { step: call.step, attempts: 0, startedAt: call.startedAt - startedAt, usage: emptyUsage, text: '', toolCalls: [] };
    step.attempts = Math.max(step.attempts, call.attempt);
    if (call.response) {
      step.text = call.response.text;
      step.usage = usageFrom(call.response.usage as Partial<LanguageModelUsage> | undefined);
      if (call.response.finishReason !== undefined) step.finishReason = call.response.finishReason as TraceStep['finishReason'];
      step.toolCalls = call.response.toolCalls.map((toolCall) => ({ ...toolCall, startedAt: call.startedAt + (call.durationMs ?? 0) - startedAt }));
    }
    steps.set(call.step, step);
  }
  return {
    version: TRACE_VERSION,
    runId: run.runId,
    startedAt,
    durationMs: lastAt - startedAt,
    outcome: outcome ?? 'aborted',
    ...statesAndTransitions(run.timeline, startedAt),
    steps: [...steps.values()],
    retries: [],
    compactions: [],
    hooks: [],
  };
}

/** The trace's states and transitions from the timeline, in milliseconds from the run's start. */
function statesAndTransitions(timeline: TimelinePoint[], startedAt: number): { states: TraceState[]; transitions: TraceTransition[] } {
  const states: TraceState[] = [];
  const transitions: TraceTransition[] = [];
  let current: { state: string; enteredAt: number } | undefined;
  for (const point of timeline) {
    const at = point.at - startedAt;
    transitions.push({ from: point.from, to: point.to, event: point.event, ...(point.guard !== undefined ? { guard: point.guard } : {}), at });
    current ??= { state: point.from, enteredAt: 0 };
    if (point.to === current.state) continue;
    states.push({ state: current.state, enteredAt: current.enteredAt, leftAt: at });
    current = { state: point.to, enteredAt: at };
  }
  return { states, transitions };
}
