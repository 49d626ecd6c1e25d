import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { ModelMessage } from 'ai';
import type { AgentEvent } from '../core/events.js';
import { stateName } from '../machine/state-name.js';
import { emptyUsage } from '../core/usage.js';
import type { HookTiming } from '../core/run-trace.js';
import { distinctWarnings } from './call-warnings.js';
import { toolOutputPreview } from './tool-output-preview.js';
import { TRACE_VERSION, type RunTrace, type TraceStep } from '../core/run-trace.js';
import type { RunObserver } from './run-observer.js';

/** Each state node's dotted path, joined once per node (the machine definition is shared by every agent). */
const statePaths = new WeakMap<object, string>();

function pathOf(node: { path: string[] }): string {
  let path = statePaths.get(node);
  if (path === undefined) {
    path = node.path.join('.');
    statePaths.set(node, path);
  }
  return path;
}

/**
 * Builds the trace of the current run from the root actor's microsteps (states
 * and transitions, transient ones included), the agent's events and the hook
 * timings. Constant work per event; nothing per streamed chunk.
 */
export class TraceRecorder implements RunObserver {
  private trace: RunTrace | undefined;
  /** The trace of the run that ended last, until it is taken. */
  private finished: RunTrace | undefined;
  private origin = 0;
  private state: { name: string; enteredAt: number; isModelCall: boolean } | undefined;
  /** When the machine entered `running.llm` for the current call. */
  private modelSince: number | undefined;

  constructor(private readonly root: () => AnyActorRef | undefined) {}

  private now(): number {
    return Date.now() - this.origin;
  }

  private currentStep(): TraceStep | undefined {
    return this.trace?.steps.at(-1);
  }

  /** An XState inspection event; only the root actor's microsteps and the first-chunk event count. */
  inspect(event: InspectionEvent): void {
    if (event.actorRef !== this.root()) return;
    // A run starts with the prompt event, before the microsteps it causes; `run-start` arrives after them.
    if (event.type === '@xstate.event' && event.event.type === 'agent.prompt') this.begin();
    if (!this.trace) return;
    if (event.type === '@xstate.microstep') {
      const at = this.now();
      for (const transition of event._transitions) {
        for (const target of transition.target ?? []) {
          const guard = transition.guard as { type?: unknown } | string | undefined;
          const from = pathOf(transition.source);
          const to = pathOf(target);
          const eventType = transition.eventType === '' ? 'always' : String(transition.eventType);
          // Two literals, not a conditional spread: this runs for every transition of every step.
          this.trace.transitions.push(
            guard ? { from, to, event: eventType, guard: typeof guard === 'string' ? guard : String(guard.type), at } : { from, to, event: eventType, at },
          );
        }
      }
      const snapshot = event.snapshot as unknown as { value: unknown; hasTag(tag: string): boolean };
      this.enter(stateName(snapshot.value), snapshot.hasTag('model-call'), at);
    } else if (event.type === '@xstate.event' && event.event.type === 'llm.firstChunk') {
      const step = this.currentStep();
      if (step) step.firstChunkMs = this.now() - step.startedAt;
    }
  }

  /** `isModelCall`: the state is tagged `model-call` (the llm states), whose time counts as model time. */
  private enter(name: string, isModelCall: boolean, at: number): void {
    if (this.state?.name === name) return;
    if (this.state) {
      this.trace?.states.push({ state: this.state.name, enteredAt: this.state.enteredAt, leftAt: at });
      if (this.state.isModelCall && !isModelCall) this.leaveModel(at);
    }
    if (isModelCall && !this.state?.isModelCall) this.modelSince = at;
    // The current state is the recorder's alone (`states` gets a record of its own): changed in place, not made anew per microstep.
    if (this.state === undefined) this.state = { name, enteredAt: at, isModelCall };
    else {
      this.state.name = name;
      this.state.enteredAt = at;
      this.state.isModelCall = isModelCall;
    }
  }

  /** The model call of the current step ended: its time counts as model time. */
  private leaveModel(at: number): void {
    const step = this.currentStep();
    if (this.modelSince === undefined || !step) return;
    step.modelMs = (step.modelMs ?? 0) + (at - this.modelSince);
    step.modelEndedAt = at;
    this.modelSince = undefined;
  }

  hook(timing: HookTiming): void {
    if (!this.trace || timing.runId !== this.trace.runId) return;
    this.trace.hooks.push({
      hook: timing.hook,
      index: timing.index,
      step: timing.step,
      startedAt: timing.startedAt - this.origin,
      durationMs: timing.durationMs,
      ok: timing.ok,
      ...(timing.message !== undefined ? { message: timing.message } : {}),
    });
  }

  private begin(): void {
    this.origin = Date.now();
    this.trace = {
      version: TRACE_VERSION,
      runId: '',
      startedAt: this.origin,
      durationMs: 0,
      outcome: 'completed',
      states: [],
      transitions: [],
      steps: [],
      retries: [],
      compactions: [],
      hooks: [],
    };
    this.state = { name: 'idle', enteredAt: 0, isModelCall: false };
  }

  /** The trace of the run whose `run-end` this recorder was told of last, once. */
  takeFinished(): RunTrace | undefined {
    const trace = this.finished;
    this.finished = undefined;
    return trace;
  }

  /** An agent event, as the machine emits it. Returns the finished trace on `run-end` (also kept for `takeFinished`). */
  event(event: AgentEvent): RunTrace | undefined {
    if (event.type === 'run-start') {
      if (!this.trace) this.begin();
      this.trace!.runId = event.runId;
      return undefined;
    }
    const trace = this.trace;
    if (!trace || !('runId' in event) || event.runId !== trace.runId) return undefined;
    const at = this.now();
    switch (event.type) {
      case 'start-step':
        trace.steps.push({ step: event.step, attempts: 1, startedAt: at, usage: emptyUsage, text: '', toolCalls: [] });
        break;
      case 'finish-step': {
        const step = this.currentStep();
        if (!step) break;
        step.durationMs = at - step.startedAt;
        if (event.finishReason !== undefined) step.finishReason = event.finishReason;
        step.usage = event.usage;
        step.text = event.text;
        break;
      }
      case 'message': {
        // The step's kept reasoning, once, from its assistant message: nothing is gathered per chunk.
        const step = this.currentStep();
        const reasoning = step && event.message.role === 'assistant' ? reasoningText(event.message) : '';
        if (step && reasoning !== '') step.reasoning = reasoning;
        break;
      }
      case 'retry': {
        trace.retries.push({ step: event.step, attempt: event.attempt, delayMs: event.delayMs, error: event.error, at });
        const step = this.currentStep();
        if (step) step.attempts = event.attempt;
        break;
      }
      case 'model-call-start': {
        const step = this.currentStep();
        if (step && event.warnings.length > 0) step.warnings = distinctWarnings([...(step.warnings ?? []), ...event.warnings]);
        break;
      }
      case 'stream-warning': {
        const step = this.currentStep();
        if (step) (step.streamWarnings ??= []).push(event.error);
        break;
      }
      case 'tool-call':
        this.currentStep()?.toolCalls.push({ toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, startedAt: at });
        break;
      case 'tool-result': {
        const call = this.currentStep()?.toolCalls.find((candidate) => candidate.toolCallId === event.toolCallId && candidate.durationMs === undefined);
        if (call) {
          call.durationMs = event.durationMs;
          call.isError = event.isError;
          call.outputPreview = toolOutputPreview(event.output);
        }
        break;
      }
      case 'compaction-start':
        trace.compactions.push({ reason: event.reason, tokensBefore: event.tokensBefore, startedAt: at });
        break;
      case 'compaction-end': {
        const compaction = trace.compactions.at(-1);
        if (compaction) Object.assign(compaction, { kind: event.kind, tokensAfter: event.tokensAfter, durationMs: at - compaction.startedAt });
        break;
      }
      case 'run-end': {
        this.enter('idle', false, at);
        trace.durationMs = at;
        trace.outcome = event.result.outcome;
        if (event.result.error) trace.error = event.result.error;
        this.trace = undefined;
        this.state = undefined;
        this.finished = trace;
        return trace;
      }
      default:
        break;
    }
    return undefined;
  }
}

/** The reasoning parts of an assistant message, as one text. */
function reasoningText(message: ModelMessage): string {
  if (typeof message.content === 'string') return '';
  return message.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
}
