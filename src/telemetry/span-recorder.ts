import type { Attributes, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';
import type { LanguageModel } from 'ai';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { LlmActorEvent } from '../actors/llm-actor.js';
import type { AgentMachineEvent } from '../machine/agent-machine.js';
import type { AgentEvent } from '../core/events.js';
import type { RunState } from '../machine/context.js';
import { stateName } from '../machine/state-name.js';
import { AgentOptionsError } from '../options.js';
import type { Outcome, RunError } from '../core/result.js';
import type { HookTiming } from '../core/run-trace.js';
import type { TraceContextRecord } from '../persistence/session-store.js';
import type { ToolCallIdentity } from '../core/runtime.js';
import { cutAttribute, errorText, finishReasonValue, GEN_AI_OPERATION, jsonAttribute, providerName, usageAttributes } from './gen-ai-attributes.js';
import { loadOtelApi, type OtelApi } from './otel-api.js';
import { modelIdentity } from '../core/model-identity.js';
import type { TelemetryOptions } from './telemetry-options.js';
import { redactingTracer, type SpanStarter } from './redacting-tracer.js';
import { TELEMETRY_FAILED_WARNING, telemetryFailedMessage, tolerantTracer } from './tolerant-tracer.js';
import { warnOnce } from '../core/warn-once.js';
import type { RunObserver } from '../trace/run-observer.js';

/** A span's `isRecording`, true for a tracer whose spans do not say (a tracer that throws is ignored elsewhere). */
function isRecording(span: Span): boolean {
  try {
    return typeof span.isRecording !== 'function' || span.isRecording();
  } catch {
    return true;
  }
}

/** Outcomes whose root span gets status ERROR: the run did not do its work for a reason that is not the app's own choice. */
const ERROR_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'timeout', 'context-limit']);

/** What the span recorder needs of its agent. */
export interface SpanRecorderScope {
  model: LanguageModel;
  /** The agent's root actor now (a restored or recovered agent changes it). */
  root: () => AnyActorRef | undefined;
  sessionId: () => string | undefined;
  /** The agent's `secrets`: redacted from every attribute, status and exception of its spans. */
  secrets?: readonly string[];
}

/** A model call in progress; its span is made when it ends, with the provider's part of the time. */
interface OpenChat {
  step: number;
  attempt: number;
  state: string;
  /** When the machine entered the model-call state. */
  enteredAt: number;
  /** When the last `beforeLLMCall` hook ended: the request goes out after it. */
  requestedAt?: number;
  /** When the first `afterLLMCall` hook began: the stream had finished by then. */
  finishedAt?: number;
  firstChunkAt?: number;
}

/** The spans of the run in progress. */
interface RunSpans {
  runId: string;
  root: Span;
  /** The root span's context: every other span of the run is its child. */
  context: Context;
  /** `Date.now() - performance.now()` at the run's start: the run's clock is epoch milliseconds with sub-millisecond steps. */
  origin: number;
  chat?: OpenChat;
  lastChatEndedAt: number;
  retry?: Span;
  compaction?: Span;
  approvals: Map<string, Span>;
  /** Tool calls whose `execute` started: their span, and when `execute` settled. */
  tools: Map<string, { span: Span; settledAt?: number }>;
  toolInputs: Map<string, unknown>;
  /** The state that answered the last tool call (`tool.answer` arrives in it). */
  answeredIn?: string;
  /** The last state of the run other than `idle`: where it ended. */
  lastState: string;
  /**
   * Whether the root span records (a no-op tracer, or a sampler that left the run out, gives one
   * that does not): a run whose root is not recorded makes no other span and computes no attribute.
   */
  recording: boolean;
}

/**
 * Makes OpenTelemetry spans of an agent's runs from what the agent already reports: the root
 * actor's inspection events (states entered, the llm actor's first chunk and end, approvals), the
 * agent's events and the hook timings. Constant work per event and nothing per streamed chunk.
 *
 * One `invoke_agent` span per run; under it a `chat` span per model call (attempt), an
 * `execute_tool` span per tool result, and `approval`, `retry` and `compaction` spans. A `chat`
 * span covers the provider's time only: from the request (after `beforeLLMCall` hooks) to the
 * stream's finish (before `afterLLMCall` hooks). Never throws: a tracer call that throws is skipped
 * (see `tolerantTracer`), and the calls after it are still made.
 */
export class SpanRecorder implements RunObserver {
  private run: RunSpans | undefined;
  /** A run being resumed from a checkpoint, and the root span it had before: its new root links to it. */
  private resumedFrom: { runId: string; context: TraceContextRecord } | undefined;
  private state = 'idle';
  private readonly provider: string;
  private readonly modelId: string;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: SpanStarter,
    private readonly options: TelemetryOptions,
    private readonly scope: SpanRecorderScope,
  ) {
    const model = modelIdentity(scope.model);
    this.provider = providerName(model.provider);
    this.modelId = model.modelId;
  }

  /** An XState inspection event of any actor of the agent; only the root actor's count. */
  inspect(event: InspectionEvent): void {
    if (event.actorRef !== this.scope.root() || this.run?.recording === false) return;
    try {
      if (event.type === '@xstate.microstep') {
        const snapshot = event.snapshot as unknown as { value: unknown; context: { run?: RunState }; hasTag(tag: string): boolean };
        this.enter(stateName(snapshot.value), snapshot.hasTag('model-call'), snapshot.context.run);
      } else if (event.type === '@xstate.event') {
        this.receive(event.event as AgentMachineEvent);
      }
    } catch {
      // Telemetry never breaks a run.
    }
  }

  /** An event the machine emitted, at the moment it emits it. */
  event(event: AgentEvent): void {
    try {
      this.onEvent(event);
    } catch {
      // Telemetry never breaks a run.
    }
  }

  /**
   * Runs a tool's `execute` inside its `execute_tool` span: the span starts now, the tool's own spans
   * (and a sub-agent's `invoke_agent`) are its children where a context manager is registered, and
   * it ends when `execute` settles, with what the call answered (see the `tool-result` event).
   */
  readonly runToolCall = <T>(call: ToolCallIdentity, execute: () => Promise<T>): Promise<T> => {
    const run = this.run;
    if (!run || run.runId !== call.runId) return execute();
    if (!run.recording) return this.withContext(run.context, execute);
    let open: { span: Span; settledAt?: number };
    try {
      open = { span: this.start(run, `${GEN_AI_OPERATION.executeTool} ${cutAttribute(call.toolName)}`, this.api.SpanKind.INTERNAL, this.now(run), this.toolAttributes(call)) };
      run.tools.set(call.toolCallId, open);
    } catch {
      return execute();
    }
    const settled = () => {
      open.settledAt = this.now(run);
    };
    const running = this.withContext(this.api.trace.setSpan(run.context, open.span), execute);
    running.then(settled, settled);
    return running;
  };

  /**
   * `execute` in `context` through the app's context manager; one whose `with` throws before it
   * calls `execute` (a broken manager) gets `execute` run outside it: telemetry never fails a tool call.
   */
  private withContext<T>(context: Context, execute: () => Promise<T>): Promise<T> {
    let called = false;
    try {
      return this.api.context.with(context, () => {
        called = true;
        return execute();
      });
    } catch (error) {
      if (called) throw error;
      warnOfFailingTracer(telemetryFailedMessage("the context manager's context.with", error));
      return execute();
    }
  }

  private toolAttributes(call: Pick<ToolCallIdentity, 'toolName' | 'toolCallId' | 'step'>): Attributes {
    return {
      'gen_ai.operation.name': GEN_AI_OPERATION.executeTool,
      'gen_ai.tool.name': cutAttribute(call.toolName),
      'gen_ai.tool.call.id': call.toolCallId,
      'gen_ai.tool.type': 'function',
      'loopchart.step': call.step,
    };
  }

  /** The root span of run `runId`, while it is this recorder's and recorded: a checkpoint keeps it. */
  traceContext(runId: string): TraceContextRecord | undefined {
    const run = this.run;
    if (run?.runId !== runId || !run.recording) return undefined;
    try {
      const { traceId, spanId, traceFlags } = run.root.spanContext();
      return { traceId, spanId, traceFlags };
    } catch {
      // Telemetry never breaks a run, nor its session's writes.
      return undefined;
    }
  }

  /** Run `runId` continues from a checkpoint that kept its root span: the resumed run's root links to it. */
  resumeFrom(runId: string, context: TraceContextRecord): void {
    this.resumedFrom = { runId, context };
  }

  /**
   * The run in progress will not end here (its agent was disposed while it waited for approval, or
   * its session was halted): its spans end now, the root marked `loopchart.abandoned`, so that they
   * reach the exporter (a process that resumes the run links its new root to this one).
   */
  abandon(reason: 'disposed' | 'halted'): void {
    const run = this.run;
    if (!run) return;
    try {
      if (run.recording) run.root.setAttribute('loopchart.abandoned', reason);
      this.endRun(run, undefined);
    } catch {
      // Telemetry never breaks a run, nor its session's end.
    }
  }

  /** A hook's timing: a `chat` span leaves out the time of the hooks around the model call. */
  hook(timing: HookTiming): void {
    const run = this.run;
    const chat = run?.chat;
    if (!run?.recording || !chat || timing.runId !== run.runId || timing.step !== chat.step) return;
    const now = this.now(run);
    // The timing is reported the moment the hook ends.
    if (timing.hook === 'beforeLLMCall') chat.requestedAt = now;
    else if (timing.hook === 'afterLLMCall') chat.finishedAt ??= now - timing.durationMs;
  }

  private now(run: RunSpans): number {
    return run.origin + performance.now();
  }

  private start(run: RunSpans, name: string, kind: SpanKind, startTime: number, attributes: Attributes): Span {
    return this.tracer.startSpan(name, { kind, startTime, attributes: { 'loopchart.run.id': run.runId, ...attributes } }, run.context);
  }

  private failed(span: Span, error: { type: string; message: string }): void {
    const message = cutAttribute(error.message);
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
    span.setAttribute('error.type', error.type);
    span.recordException({ name: error.type, message });
  }

  /** The run's spans, the root started if this is the first sign of the run (a resumed run has no `run-start` here). */
  private runSpans(runId: string): RunSpans {
    if (this.run?.runId === runId) return this.run;
    if (this.run) this.endRun(this.run, undefined);
    const origin = Date.now() - performance.now();
    const startTime = origin + performance.now();
    const { functionId } = this.options;
    const sessionId = this.scope.sessionId();
    const resumed = this.resumedFrom?.runId === runId ? this.resumedFrom.context : undefined;
    this.resumedFrom = undefined;
    const link = resumed !== undefined ? { ...resumed, isRemote: true } : undefined;
    const root = this.tracer.startSpan(functionId ? `${GEN_AI_OPERATION.invokeAgent} ${functionId}` : GEN_AI_OPERATION.invokeAgent, {
      kind: this.api.SpanKind.INTERNAL,
      startTime,
      ...(link !== undefined && this.api.trace.isSpanContextValid(link) ? { links: [{ context: link, attributes: { 'loopchart.link': 'resumed-from' } }] } : {}),
      attributes: {
        ...(resumed !== undefined ? { 'loopchart.resumed': true } : {}),
        'gen_ai.operation.name': GEN_AI_OPERATION.invokeAgent,
        'gen_ai.provider.name': this.provider,
        'gen_ai.request.model': this.modelId,
        'loopchart.run.id': runId,
        ...(functionId ? { 'gen_ai.agent.name': functionId } : {}),
        ...(sessionId ? { 'gen_ai.conversation.id': sessionId } : {}),
      },
    });
    const context = this.api.trace.setSpan(this.api.context.active(), root);
    this.run = { runId, root, context, origin, lastChatEndedAt: startTime, approvals: new Map(), tools: new Map(), toolInputs: new Map(), lastState: this.state, recording: isRecording(root) };
    return this.run;
  }

  /** The machine entered `state` (a leaf, as a dotted path). */
  private enter(state: string, isModelCall: boolean, runState: RunState | undefined): void {
    if (state === this.state) return;
    const previous = this.state;
    this.state = state;
    const run = runState ? this.runSpans(runState.id) : this.run;
    if (!run) return;
    if (state !== 'idle') run.lastState = state;
    const now = this.now(run);
    if (previous.endsWith('.awaitingApproval')) this.endApprovals(run, 'unanswered', now);
    if (run.retry) {
      run.retry.end(now);
      run.retry = undefined;
    }
    // Left without the llm actor's end (a forced stop): the call was cut off.
    if (run.chat && !isModelCall) this.endChat(run, undefined, now);
    if (isModelCall && !run.chat && runState) run.chat = { step: runState.steps, attempt: runState.attempt, state, enteredAt: now };
  }

  /** An event the root actor received, before it acts on it. */
  private receive(event: AgentMachineEvent): void {
    const run = this.run;
    if (!run) return;
    const now = this.now(run);
    switch (event.type) {
      case 'llm.firstChunk':
        if (run.chat) run.chat.firstChunkAt ??= now;
        break;
      case 'llm.finish':
      case 'llm.error':
      case 'llm.aborted':
        if (run.chat) this.endChat(run, event, now);
        break;
      case 'tool.answer':
        run.answeredIn = this.state;
        break;
      case 'agent.approve':
        this.endApproval(run, event.toolCallId, 'approved', now);
        break;
      case 'agent.deny':
        this.endApproval(run, event.toolCallId, 'denied', now, event.reason);
        break;
      case 'approval.expired':
        this.endApprovals(run, 'expired', now);
        break;
      default:
        break;
    }
  }

  private endChat(run: RunSpans, end: LlmActorEvent | undefined, now: number): void {
    const chat = run.chat!;
    run.chat = undefined;
    const endTime = Math.min(now, chat.finishedAt ?? now);
    const startTime = Math.min(Math.max(chat.enteredAt, chat.requestedAt ?? chat.enteredAt), endTime);
    // A `beforeLLMCall` hook may have called another model than the agent's.
    const replaced = end?.type === 'llm.finish' || end?.type === 'llm.error' ? end.model : undefined;
    const modelId = replaced?.modelId ?? this.modelId;
    const span = this.start(run, `${GEN_AI_OPERATION.chat} ${modelId}`, this.api.SpanKind.CLIENT, startTime, {
      'gen_ai.operation.name': GEN_AI_OPERATION.chat,
      'gen_ai.provider.name': replaced ? providerName(replaced.provider) : this.provider,
      'gen_ai.request.model': modelId,
      'loopchart.step': chat.step,
      'loopchart.attempt': chat.attempt,
      'loopchart.state': chat.state,
      ...(chat.firstChunkAt !== undefined ? { 'gen_ai.response.time_to_first_chunk': Math.max(0, chat.firstChunkAt - startTime) / 1000 } : {}),
    });
    if (end?.type === 'llm.finish') {
      span.setAttributes({ 'gen_ai.response.finish_reasons': [finishReasonValue(end.finishReason)], ...usageAttributes(end.usage) });
    } else if (end?.type === 'llm.error') {
      this.failed(span, { type: end.error.kind, message: end.error.message });
      // An attempt whose stream finished was billed: its usage is on its span too.
      if (end.usage) span.setAttributes(usageAttributes(end.usage));
    } else {
      span.setAttribute('loopchart.aborted', true);
    }
    span.end(endTime);
    run.lastChatEndedAt = endTime;
  }

  private onEvent(event: AgentEvent): void {
    if (event.type === 'run-start') {
      this.runSpans(event.runId);
      return;
    }
    const run = this.run;
    if (!run || !('runId' in event) || event.runId !== run.runId) return;
    if (!run.recording) {
      if (event.type === 'run-end') this.endRun(run, event);
      return;
    }
    const now = this.now(run);
    switch (event.type) {
      case 'tool-call':
        if (this.options.recordInputs !== false) run.toolInputs.set(event.toolCallId, event.input);
        break;
      case 'tool-result': {
        // A call whose `execute` ran has its span already; one that never ran (blocked, denied,
        // invalid input, interrupted before it started) gets one now, as long as the call took.
        const open = run.tools.get(event.toolCallId);
        run.tools.delete(event.toolCallId);
        const span = open?.span ?? this.start(run, `${GEN_AI_OPERATION.executeTool} ${cutAttribute(event.toolName)}`, this.api.SpanKind.INTERNAL, Math.min(Math.max(now - event.durationMs, run.lastChatEndedAt), now), this.toolAttributes(event));
        span.setAttribute('loopchart.state', run.answeredIn ?? this.state);
        if (run.toolInputs.has(event.toolCallId)) span.setAttribute('gen_ai.tool.call.arguments', jsonAttribute(run.toolInputs.get(event.toolCallId)));
        run.toolInputs.delete(event.toolCallId);
        if (event.isError) this.failed(span, { type: 'tool_error', message: errorText(event.output) });
        else if (this.options.recordOutputs !== false) span.setAttribute('gen_ai.tool.call.result', jsonAttribute(event.output));
        span.end(open?.settledAt ?? now);
        break;
      }
      case 'approval-request':
        run.approvals.get(event.toolCallId)?.end(now);
        run.approvals.set(
          event.toolCallId,
          this.start(run, `approval ${event.toolName}`, this.api.SpanKind.INTERNAL, now, {
            'gen_ai.tool.name': cutAttribute(event.toolName),
            'gen_ai.tool.call.id': event.toolCallId,
            'loopchart.step': event.step,
            'loopchart.state': this.state,
            'loopchart.approval.reason': event.reason,
          }),
        );
        break;
      case 'retry':
        run.retry?.end(now);
        run.retry = this.start(run, 'retry', this.api.SpanKind.INTERNAL, now, {
          'loopchart.step': event.step,
          'loopchart.state': this.state,
          'loopchart.retry.attempt': event.attempt,
          'loopchart.retry.delay_ms': event.delayMs,
          'error.type': event.error.kind,
          'loopchart.retry.error': cutAttribute(event.error.message),
          ...(event.error.status !== undefined ? { 'http.response.status_code': event.error.status } : {}),
        });
        break;
      case 'compaction-start':
        run.compaction?.end(now);
        run.compaction = this.start(run, 'compaction', this.api.SpanKind.INTERNAL, now, {
          'loopchart.step': event.step,
          'loopchart.state': this.state,
          'loopchart.compaction.reason': event.reason,
          'loopchart.compaction.tokens_before': event.tokensBefore,
        });
        break;
      case 'compaction-end':
        run.compaction?.setAttributes({ 'loopchart.compaction.kind': event.kind, 'loopchart.compaction.tokens_after': event.tokensAfter });
        run.compaction?.end(now);
        run.compaction = undefined;
        break;
      case 'run-end':
        this.endRun(run, event);
        break;
      default:
        break;
    }
  }

  private endApproval(run: RunSpans, toolCallId: string, decision: string, now: number, message?: string): void {
    const span = run.approvals.get(toolCallId);
    if (!span) return;
    run.approvals.delete(toolCallId);
    span.setAttribute('loopchart.approval.decision', decision);
    if (message !== undefined) span.setAttribute('loopchart.approval.message', cutAttribute(message));
    span.end(now);
  }

  private endApprovals(run: RunSpans, decision: string, now: number): void {
    for (const toolCallId of [...run.approvals.keys()]) this.endApproval(run, toolCallId, decision, now);
  }

  /** The run ended (or another began without its end here): whatever is open ends with it. */
  private endRun(run: RunSpans, end: Extract<AgentEvent, { type: 'run-end' }> | undefined): void {
    const now = this.now(run);
    if (!run.recording) {
      run.root.end(now);
      // The states of a run left unrecorded were not followed: the next run's begin where the machine is.
      this.state = 'idle';
      if (this.run === run) this.run = undefined;
      return;
    }
    const error: RunError | undefined = end?.result.error;
    if (run.chat) this.endChat(run, undefined, now);
    this.endApprovals(run, 'unanswered', now);
    for (const { span, settledAt } of run.tools.values()) span.end(settledAt ?? now);
    run.tools.clear();
    run.retry?.end(now);
    if (run.compaction) {
      if (error) this.failed(run.compaction, { type: error.kind, message: error.message });
      run.compaction.end(now);
    }
    const { root } = run;
    root.setAttribute('loopchart.state', run.lastState);
    if (end) {
      const { result } = end;
      root.setAttributes({
        'loopchart.outcome': result.outcome,
        'loopchart.steps': result.stepCount,
        'loopchart.tool_calls': result.toolCallCount,
        ...usageAttributes(result.usage),
        ...(result.finishReason !== undefined ? { 'gen_ai.response.finish_reasons': [finishReasonValue(result.finishReason)] } : {}),
      });
      if (ERROR_OUTCOMES.has(result.outcome)) this.failed(root, { type: error?.kind ?? result.outcome, message: error?.message ?? `the run ended ${result.outcome}` });
    }
    root.end(now);
    if (this.run === run) this.run = undefined;
  }
}

/** Told of the first tracer call that throws in this process (a broken exporter throws on every span). */
const warnOfFailingTracer = warnOnce(TELEMETRY_FAILED_WARNING);

/**
 * The span recorder of an agent whose `telemetry` option is on: loads `@opentelemetry/api` and
 * takes the tracer (the option's, or the global provider's `loopchart` tracer). Only called when
 * telemetry is on, so an agent without it loads nothing of OpenTelemetry.
 *
 * @throws AgentOptionsError when `@opentelemetry/api` is not installed.
 */
export function createSpanRecorder(options: TelemetryOptions, scope: SpanRecorderScope): SpanRecorder {
  let api: OtelApi;
  try {
    api = loadOtelApi();
  } catch (error) {
    throw new AgentOptionsError([{ path: 'telemetry', message: error instanceof Error ? error.message : String(error) }]);
  }
  const tracer = (options.tracer as Tracer | undefined) ?? api.trace.getTracer('loopchart');
  return new SpanRecorder(api, tolerantTracer(api, redactingTracer(tracer, scope.secrets ?? []), warnOfFailingTracer), options, scope);
}
