import { usageCost } from '../cost/usage-cost.js';
import type { RunError } from '../core/outcome.js';
import type { TraceCompaction, TraceRetry, TraceStep } from '../core/run-trace.js';
import type { CheckpointSummary, ModelCallRecord, SessionRecordView } from '../time-travel/session-record.js';

/** One moment the page can show: the state a run was in after one of its transitions. */
export interface PlaybackFrame {
  /** The run's index in the session. */
  run: number;
  /** The transition's index within its run (the timeline point). */
  point: number;
  /** Epoch milliseconds. */
  at: number;
  event: string;
  from: string;
  /** The state lit at this frame: a dotted leaf state path. */
  to: string;
  step: number;
  /** The checkpoint written at this point, if any. */
  checkpointId?: number;
  /** The checkpoint "run on from here" forks from: the last one written at or before this frame. */
  forkCheckpoint?: number;
  /** The first frame of its step (a step boundary on the timeline). */
  stepStart?: true;
  /** The first frame of its run (a run boundary). */
  runStart?: true;
}

/** One LLM call of a run, as the page shows it beside the chart. */
export interface PlaybackStep extends Pick<TraceStep, 'step' | 'attempts' | 'finishReason' | 'usage' | 'text' | 'reasoning' | 'toolCalls'> {
  /** The attempts that failed before the kept one (retries), with their errors. */
  failedAttempts: { attempt: number; error: { kind: string; message: string } }[];
  /** The model that answered, as its request named it, when it did. */
  model?: string;
  /** List-price cost in US dollars, when the model is one the price catalogue knows. */
  costUsd?: number;
}

export interface PlaybackRun {
  runId: string;
  outcome: string;
  error?: RunError;
  startedAt: number;
  durationMs: number;
  /** The index of its first frame in {@link PlaybackData.frames}. */
  firstFrame: number;
  frameCount: number;
  steps: PlaybackStep[];
  retries: TraceRetry[];
  compactions: TraceCompaction[];
}

/** Everything the playback page draws, from one session's record: small enough to send whole (no histories). */
export interface PlaybackData {
  sessionId: string;
  createdAt: string;
  forkedFrom?: { sessionId: string; checkpoint: number };
  warnings: string[];
  runs: PlaybackRun[];
  frames: PlaybackFrame[];
  checkpoints: CheckpointSummary[];
  /** Changes whenever the session grows: the page polls with it to follow a live run. */
  version: string;
}

function modelName(call: ModelCallRecord | undefined): { provider: string; modelId: string } | undefined {
  const settings = call?.request.settings ?? {};
  const provider = settings.provider;
  const modelId = settings.modelId;
  return typeof provider === 'string' && typeof modelId === 'string' ? { provider, modelId } : undefined;
}

function playbackStep(step: TraceStep, calls: readonly ModelCallRecord[]): PlaybackStep {
  const ofStep = calls.filter((call) => call.step === step.step);
  const failedAttempts = ofStep.filter((call) => call.error !== undefined).map((call) => ({ attempt: call.attempt, error: call.error! }));
  const identity = modelName(ofStep.at(-1));
  const cost = identity ? usageCost(identity, step.usage)?.total : undefined;
  return {
    step: step.step,
    attempts: step.attempts,
    ...(step.finishReason !== undefined ? { finishReason: step.finishReason } : {}),
    usage: step.usage,
    text: step.text,
    ...(step.reasoning !== undefined ? { reasoning: step.reasoning } : {}),
    toolCalls: step.toolCalls,
    failedAttempts,
    ...(identity ? { model: `${identity.provider}:${identity.modelId}` } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
  };
}

/** Of a run's checkpoints, in order, the last one written by `step`; the run's end one only at its last point. */
function checkpointReached(ofRun: readonly CheckpointSummary[], step: number, lastPoint: boolean): CheckpointSummary | undefined {
  let reached: CheckpointSummary | undefined;
  for (const checkpoint of ofRun) {
    if (checkpoint.outcome !== undefined || checkpoint.state === 'idle') {
      if (lastPoint) reached = checkpoint;
      continue;
    }
    if (checkpoint.step > step) break;
    reached = checkpoint;
  }
  return reached;
}

/**
 * The session's runs flattened into the frames the page steps through, one per transition, with
 * the step and run boundaries marked and, at each frame, the checkpoint a fork from there starts
 * at. A run whose timeline points name no checkpoint (an older record) forks from the last
 * checkpoint of its run at or before the frame's step.
 *
 * @example
 * const data = playbackData(await openSessionRecord(store, 'chat-42'));
 * data.frames[0] // { run: 0, point: 0, event: 'agent.prompt', from: 'idle', to: 'running.prepare', step: 0, runStart: true, stepStart: true, … }
 */
export function playbackData(view: SessionRecordView): PlaybackData {
  const frames: PlaybackFrame[] = [];
  const runs: PlaybackRun[] = [];
  const checkpointIds = new Set(view.checkpoints.map((checkpoint) => checkpoint.id));
  let lastCheckpoint: number | undefined = view.header.forkedFrom ? view.checkpoints[0]?.id : undefined;
  view.runs.forEach((recorded, runIndex) => {
    const firstFrame = frames.length;
    const pointsNameCheckpoints = recorded.timeline.some((point) => point.checkpointId !== undefined);
    const ofRun = view.checkpoints.filter((checkpoint) => checkpoint.runId === recorded.runId);
    let previousStep: number | undefined;
    for (const point of recorded.timeline) {
      if (pointsNameCheckpoints) {
        if (point.checkpointId !== undefined && checkpointIds.has(point.checkpointId)) lastCheckpoint = point.checkpointId;
      } else {
        const reached = checkpointReached(ofRun, point.step, point === recorded.timeline.at(-1));
        if (reached) lastCheckpoint = reached.id;
      }
      const frame: PlaybackFrame = {
        run: runIndex,
        point: point.index,
        at: point.at,
        event: point.event,
        from: point.from,
        to: point.to,
        step: point.step,
        ...(point.checkpointId !== undefined ? { checkpointId: point.checkpointId } : {}),
        ...(lastCheckpoint !== undefined ? { forkCheckpoint: lastCheckpoint } : {}),
        ...(frames.length === firstFrame ? { runStart: true as const } : {}),
        ...(point.step !== previousStep ? { stepStart: true as const } : {}),
      };
      previousStep = point.step;
      frames.push(frame);
    }
    const { trace } = recorded;
    runs.push({
      runId: recorded.runId,
      outcome: trace.outcome,
      ...(trace.error ? { error: trace.error } : {}),
      startedAt: trace.startedAt,
      durationMs: trace.durationMs,
      firstFrame,
      frameCount: frames.length - firstFrame,
      steps: trace.steps.map((step) => playbackStep(step, recorded.modelCalls)),
      retries: trace.retries,
      compactions: trace.compactions,
    });
  });
  const lastFrame = frames.at(-1);
  return {
    sessionId: view.sessionId,
    createdAt: view.header.createdAt,
    ...(view.header.forkedFrom ? { forkedFrom: view.header.forkedFrom } : {}),
    warnings: view.warnings,
    runs,
    frames,
    checkpoints: view.checkpoints,
    version: [view.checkpoints.length, frames.length, lastFrame?.at ?? 0, runs.map((run) => run.outcome).join(',')].join(':'),
  };
}
