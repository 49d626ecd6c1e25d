import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { AgentEvent } from '../events.js';
import { stateName } from '../machines/state-name.js';
import type { ModelCallLogRecord, SessionRecord, TimelineTuple, TraceRecord } from '../persistence/session-store.js';
import type { RunTrace } from '../trace/run-trace.js';

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
  /** The call in flight, until it finishes, fails or the run ends. */
  private open: ModelCallLogRecord | undefined;
  /** The call that finished last, until the next checkpoint: its step's tool calls and reasoning join it. */
  private finished: ModelCallLogRecord | undefined;
  /** Tool calls of a step reported before its finish-step. */
  private stepToolCalls: { runId: string; step: number; calls: NonNullable<ModelCallLogRecord['response']>['toolCalls'] } | undefined;
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
    // A call begins as the machine enters the llm state: a call that fails before it streams sends no model-call-start.
    if (run && isModelCallState(to) && !isModelCallState(from)) this.openCall(run.id, run.steps, run.attempt, snapshot.context.messages.length, now);
  }

  private openCall(runId: string, step: number, attempt: number, messageCount: number, startedAt: number): void {
    this.closeOpen();
    this.open = { type: 'model-call', runId, step, attempt, startedAt, request: { messageCount, tools: this.source.toolNames(), settings: this.source.settings() } };
  }

  /** An agent event (the machine's, and the model call's `model-call-start`). */
  event(event: AgentEvent): void {
    switch (event.type) {
      case 'model-call-start': {
        const matches = this.open?.runId === event.runId && this.open.step === event.step && this.open.attempt === event.attempt;
        if (!matches) this.openCall(event.runId, event.step, event.attempt, this.messageCount(), Date.now());
        const settings = this.open!.request.settings;
        this.open!.request.settings = {
          ...(event.model ? { model: `${event.model.provider}:${event.model.modelId}` } : {}),
          ...settings,
          ...(event.warnings.length > 0 ? { warnings: event.warnings } : {}),
        };
        break;
      }
      case 'finish-step': {
        const call = this.open;
        if (!call || call.runId !== event.runId || call.step !== event.step) break;
        call.durationMs = Date.now() - call.startedAt;
        call.response = {
          text: event.text,
          toolCalls: this.stepToolCalls?.runId === event.runId && this.stepToolCalls.step === event.step ? this.stepToolCalls.calls : [],
          ...(event.finishReason !== undefined ? { finishReason: event.finishReason } : {}),
          usage: event.usage,
        };
        this.finished = call;
        this.closeOpen();
        break;
      }
      case 'tool-call': {
        // Reported as the step's calls enter the history, before or after its finish-step.
        const toolCall = { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input };
        const call = this.finished;
        if (call?.response && call.runId === event.runId && call.step === event.step) call.response.toolCalls.push(toolCall);
        else if (this.stepToolCalls?.runId === event.runId && this.stepToolCalls.step === event.step) this.stepToolCalls.calls.push(toolCall);
        else this.stepToolCalls = { runId: event.runId, step: event.step, calls: [toolCall] };
        break;
      }
      case 'message': {
        const call = this.finished;
        if (call?.response && call.runId === event.runId && event.message.role === 'assistant' && typeof event.message.content !== 'string') {
          const reasoning = event.message.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
          if (reasoning !== '') call.response.reasoning = reasoning;
        }
        break;
      }
      case 'retry':
        this.fail(event.runId, { kind: event.error.kind, message: event.error.message });
        break;
      case 'run-end':
        this.fail(event.runId, event.result.error ? { kind: event.result.error.kind, message: event.result.error.message } : { kind: event.result.outcome, message: `the run ended (${event.result.outcome}) before the call did` });
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

  /** What was collected since the last call, for the checkpoint being written: transitions first, then model calls and traces. */
  drain(): SessionRecord[] {
    this.flushTimeline();
    this.finished = undefined;
    this.stepToolCalls = undefined;
    return this.ready.splice(0);
  }

  private fail(runId: string, error: { kind: string; message: string }): void {
    const call = this.open;
    if (!call || call.runId !== runId) return;
    call.durationMs = Date.now() - call.startedAt;
    call.error = error;
    this.closeOpen();
  }

  /** The call in flight goes to the records as it stands. */
  private closeOpen(): void {
    if (!this.open) return;
    this.flushTimeline();
    this.ready.push(this.open);
    this.open = undefined;
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
