import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { AgentEvent } from '../core/events.js';
import { stateName } from '../machine/state-name.js';
import type { ModelCallLogRecord, SessionRecord, TimelineTuple, TraceRecord } from '../persistence/session-store.js';
import type { RunTrace } from '../core/run-trace.js';

/** What the journal reads of its agent. */
export interface RunJournalSource {
  /** The agent's root actor: only its microsteps are the run's transitions. */
  root: () => AnyActorRef | undefined;
  /** The names of the tools the model is offered. */
  toolNames: () => string[];
  /** The settings every call is made with (the step limit, how tools run). */
  settings: () => Record<string, unknown>;
}

interface OpenTimeline {
  runId: string;
  at: number;
  points: TimelineTuple[];
}

/**
 * Collects what a session keeps of each run besides its messages and checkpoints — the machine's
 * transitions, each model call's request summary and response, the run's trace — and hands it to
 * the session writer at each checkpoint (`drain`). Constant work per transition and per event;
 * nothing per streamed chunk.
 */
export class RunJournal {
  private timeline: OpenTimeline | undefined;
  private readonly ready: SessionRecord[] = [];
  /** Calls made whose step has not ended yet (a step ends after its tools): its response is known at its `finish-step`. */
  private readonly calls: ModelCallLogRecord[] = [];
  /** The tool calls and reasoning of the step in progress, reported before its `finish-step`. */
  private stepOutput: { runId: string; step: number; toolCalls: NonNullable<ModelCallLogRecord['response']>['toolCalls']; reasoning: string } | undefined;
  private runId: string | undefined;
  private step = 0;
  private state: string | undefined;

  constructor(private readonly source: RunJournalSource) {}

  /** An XState inspection event; only the root actor's events and microsteps count. */
  inspect(event: InspectionEvent): void {
    if (event.actorRef !== this.source.root()) return;
    if (event.type === '@xstate.event') {
      // The state the event finds the machine in: a restored actor's first transition starts there.
      const value = (event.actorRef.getSnapshot() as { value?: unknown } | undefined)?.value;
      if (value !== undefined) this.state = stateName(value);
      return;
    }
    if (event.type !== '@xstate.microstep') return;
    const snapshot = event.snapshot as unknown as { value: unknown; context: { messages: unknown[]; run?: { id: string; steps: number; attempt: number } } };
    const to = stateName(snapshot.value);
    const from = this.state ?? 'idle';
    this.state = to;
    const run = snapshot.context.run;
    if (run) {
      this.runId = run.id;
      this.step = run.steps;
    }
    const [transition] = event._transitions;
    if (this.runId === undefined || transition === undefined) return;
    const guard = transition.guard as { type?: unknown } | string | undefined;
    const guardName = guard === undefined ? undefined : typeof guard === 'string' ? guard : String(guard.type);
    const now = Date.now();
    if (this.timeline?.runId !== this.runId) {
      this.flushTimeline();
      this.timeline = { runId: this.runId, at: now, points: [] };
    }
    const eventType = transition.eventType === '' ? 'always' : String(transition.eventType);
    const offset = now - this.timeline.at;
    this.timeline.points.push(guardName !== undefined ? [offset, eventType, from, to, this.step, guardName] : [offset, eventType, from, to, this.step]);
    // A call is the time in the llm states: a call that fails before it streams sends no model-call-start.
    if (run && isModelCallState(to) && !isModelCallState(from)) this.openCall(run.id, run.steps, run.attempt, snapshot.context.messages.length, now);
    if (isModelCallState(from) && !isModelCallState(to)) {
      const call = this.calls.at(-1);
      if (call && call.durationMs === undefined) call.durationMs = now - call.startedAt;
    }
  }

  /** An agent event (the machine's, and the model call's `model-call-start`). */
  event(event: AgentEvent): void {
    switch (event.type) {
      case 'model-call-start': {
        const call = this.callOf(event.runId, event.step, event.attempt) ?? this.openCall(event.runId, event.step, event.attempt, this.messageCount(), Date.now());
        call.request.settings = {
          ...(event.model ? { model: `${event.model.provider}:${event.model.modelId}` } : {}),
          ...call.request.settings,
          ...(event.warnings.length > 0 ? { warnings: event.warnings } : {}),
        };
        break;
      }
      case 'tool-call':
        this.outputOf(event.runId, event.step).toolCalls.push({ toolCallId: event.toolCallId, toolName: event.toolName, input: event.input });
        break;
      case 'message':
        if (event.message.role === 'assistant' && typeof event.message.content !== 'string') {
          const reasoning = event.message.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
          if (reasoning !== '') this.outputOf(event.runId, this.step).reasoning = reasoning;
        }
        break;
      case 'finish-step': {
        const call = this.callOf(event.runId, event.step);
        if (!call || call.response || call.error) break;
        const output = this.stepOutput?.runId === event.runId && this.stepOutput.step === event.step ? this.stepOutput : undefined;
        this.stepOutput = undefined;
        call.response = {
          text: event.text,
          ...(output?.reasoning ? { reasoning: output.reasoning } : {}),
          toolCalls: output?.toolCalls ?? [],
          ...(event.finishReason !== undefined ? { finishReason: event.finishReason } : {}),
          usage: event.usage,
        };
        this.complete(call);
        break;
      }
      case 'retry': {
        const call = this.callOf(event.runId, event.step, event.attempt - 1);
        if (call && !call.error) {
          call.error = { kind: event.error.kind, message: event.error.message, ...(event.error.status !== undefined ? { status: event.error.status } : {}) };
          this.complete(call);
        }
        break;
      }
      case 'run-end':
        for (const call of this.calls.filter((candidate) => candidate.runId === event.runId)) {
          const error = event.result.error ?? { kind: event.result.outcome, message: `the run ended (${event.result.outcome}) before the call's step did` };
          if (!call.response && !call.error) call.error = { kind: error.kind, message: error.message, ...('status' in error && error.status !== undefined ? { status: error.status } : {}) };
          this.complete(call);
        }
        break;
      default:
        break;
    }
  }

  /** The run's trace, at its end: kept without what the session holds elsewhere (see `TraceRecord`). */
  noteTrace(trace: RunTrace): void {
    this.flushTimeline();
    const steps = trace.steps.map((step) => ({ ...step, toolCalls: step.toolCalls.map(({ outputPreview: _preview, ...call }) => call) }));
    const record: TraceRecord = { type: 'trace', trace: { ...trace, states: [], transitions: [], steps } };
    this.ready.push(record);
  }

  /** What was collected since the last call, for the checkpoint being written: transitions, finished model calls, traces. */
  drain(): SessionRecord[] {
    this.flushTimeline();
    return this.ready.splice(0);
  }

  private openCall(runId: string, step: number, attempt: number, messageCount: number, startedAt: number): ModelCallLogRecord {
    const call: ModelCallLogRecord = { type: 'model-call', runId, step, attempt, startedAt, request: { messageCount, tools: this.source.toolNames(), settings: this.source.settings() } };
    this.calls.push(call);
    return call;
  }

  /** The call of that step (its last attempt, unless `attempt` is given) still waiting for its end. */
  private callOf(runId: string, step: number, attempt?: number): ModelCallLogRecord | undefined {
    return this.calls.findLast((call) => call.runId === runId && call.step === step && (attempt === undefined || call.attempt === attempt));
  }

  private outputOf(runId: string, step: number): NonNullable<RunJournal['stepOutput']> {
    if (this.stepOutput?.runId !== runId || this.stepOutput.step !== step) this.stepOutput = { runId, step, toolCalls: [], reasoning: '' };
    return this.stepOutput;
  }

  /** The call is done: it goes to the records, after the transitions that came before. */
  private complete(call: ModelCallLogRecord): void {
    const index = this.calls.indexOf(call);
    if (index >= 0) this.calls.splice(index, 1);
    call.durationMs ??= Date.now() - call.startedAt;
    this.flushTimeline();
    this.ready.push(call);
  }

  /** The transitions so far become a record, before any model call or trace that came after them. */
  private flushTimeline(): void {
    if (this.timeline && this.timeline.points.length > 0) this.ready.push({ type: 'timeline', ...this.timeline });
    this.timeline = undefined;
  }

  private messageCount(): number {
    const snapshot = this.source.root()?.getSnapshot() as { context?: { messages?: unknown[] } } | undefined;
    return snapshot?.context?.messages?.length ?? 0;
  }
}

/** The llm states (`running.llm.calling`, `running.llm.streaming`): a model call is in flight. */
function isModelCallState(state: string): boolean {
  return state.startsWith('running.llm.');
}
