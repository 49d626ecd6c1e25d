import type { AssistantModelMessage, CallWarning, FinishReason, Instructions, ModelMessage, ToolChoice, ToolSet } from 'ai';
import type { StepResponse } from '../core/events.js';
import { withOutputFeedback, type RejectedOutput } from './output-feedback.js';
import { isFinalAnswer, parseFinalAnswer } from './final-answer.js';
import { structuredOutputInstructions } from './schema-instructions.js';
import { fromCallback } from 'xstate';
import { classifyError } from '../errors/classify-error.js';
import { classifyStreamError, failedFinish } from '../errors/step-failure.js';
import type { LLMCallReplacements } from '../core/callbacks.js';
import type { LanguageModelUsage } from 'ai';
import { isUsageUnreported, usageFrom, usageProblem } from '../core/usage.js';
import type { UsageCost } from '../core/cost.js';
import { stepCost } from '../cost/step-cost.js';
import { callHook } from '../resilience/call-hook.js';
import type { RunError } from '../core/result.js';
import { errorMessage } from '../core/error-message.js';
import type { AgentRuntime, ContextTransform } from '../core/runtime.js';
import type { StepToolCall } from '../core/step.js';
import { StepAccumulator } from '../model-call/step-accumulator.js';
import { toolCallIdsIn } from '../core/tool-call-ids.js';
import { modelIdentity, type ModelIdentity } from '../core/model-identity.js';
import { isBodyChunk, StepWatchdog, type StepLimits } from './step-watchdog.js';
import { activeToolSet, preparedStep, type PreparedStep } from './prepared-step.js';
import { hasInputCallbacks, ToolInputCallbackError, ToolInputCallbacks } from './tool-input-callbacks.js';
import { withCause } from '../errors/error-cause.js';
import { providerPartEvent } from './provider-part-event.js';
import { MessageHistory, messageArray, type MessageList } from '../core/message-history.js';
import { withLazyMessages } from '../core/lazy-messages.js';

export interface LlmActorInput {
  runId: string;
  step: number;
  attempt: number;
  /** The history the model is sent (a view of it with pruned tool outputs, when some are). */
  messages: MessageList;
  /** The step's last answer the agent's `output` rejected: this attempt is sent it and what did not match, after the history. */
  rejectedOutput?: RejectedOutput;
  instructions: Instructions | undefined;
  limits: StepLimits;
  hookMs?: number;
}

/** Sent to the llm actor by the machine. */
export type LlmActorCommand = { type: 'llm.abort' };

export interface StepOutput {
  /** The assistant message for the history; undefined when the step produced nothing. */
  message: AssistantModelMessage | undefined;
  toolCalls: StepToolCall[];
  text: string;
}

/** Sent back to the machine: the first chunk, then exactly one of finish, error or aborted. */
export type LlmActorEvent =
  | { type: 'llm.firstChunk' }
  | (StepOutput & {
      type: 'llm.finish';
      /** The model called, when a `beforeLLMCall` hook replaced the agent's. */
      model?: ModelIdentity;
      finishReason: FinishReason;
      rawFinishReason?: string;
      usage: LanguageModelUsage;
      /** What the call cost with the model that made it, when its price is known. */
      cost?: UsageCost;
      /** Error parts the stream reported before it went on to a real finish (a malformed chunk, say). */
      streamErrors?: RunError[];
      /** The answer parsed with the agent's `output`, when it has one and this step is a final answer. */
      output?: unknown;
      /** The model that made the call, what the provider said of its response, and the call's warnings. */
      callModel?: ModelIdentity;
      response?: StepResponse;
      warnings?: CallWarning[];
    })
  | {
      type: 'llm.error';
      error: RunError;
      model?: ModelIdentity;
      /** What the failed attempt used, when the provider reported it (its stream finished): it was billed. */
      usage?: LanguageModelUsage;
      cost?: UsageCost;
      /** A final answer the agent's `output` rejected: the next attempt is told what did not match. */
      rejected?: RejectedOutput;
    }
  | (StepOutput & { type: 'llm.aborted' });

class ContextTransformError extends Error {}

/** The warning of a call whose provider reported usage that does not add up (`usageProblem`). */
function inconsistentUsageWarning(problem: string): CallWarning {
  return {
    type: 'other',
    message: `The provider's token usage for this call does not add up (${problem}): it is kept as reported, and a priced call counts as $0, so a cost budget (isCostOver, --max-cost) does not see it.`,
  };
}

/** What `prepareStep` returned for each step, by run: a retried attempt of a step gets the same, as `ToolLoopAgent` calls it once per step. */
const preparedSteps = new WeakMap<AgentRuntime, { key: string; prepared: PreparedStep }>();

/** The warning of a call on a priced model whose provider reported no token counts. */
export const UNREPORTED_USAGE_WARNING: CallWarning = {
  type: 'other',
  message:
    'The provider reported no token usage for this call: its tokens count as 0 and its cost as $0, so a cost budget (isCostOver, --max-cost) does not see it. A proxy may drop the usage, or the server ignore stream_options.include_usage.',
};

async function prepareStepOnce(runtime: AgentRuntime, input: LlmActorInput, messages: ModelMessage[]): Promise<PreparedStep> {
  const key = `${input.runId}|${input.step}`;
  const known = preparedSteps.get(runtime);
  if (known?.key === key) return known.prepared;
  const { steps, responseMessages } = runtime.runSteps?.() ?? { steps: [], responseMessages: [] };
  let prepared: PreparedStep;
  try {
    prepared = preparedStep(
      await runtime.prepareStep!({
        steps,
        stepNumber: input.step - 1,
        model: runtime.model,
        instructions: input.instructions,
        initialInstructions: input.instructions,
        messages,
        initialMessages: messages.slice(0, Math.max(0, messages.length - responseMessages.length)),
        responseMessages: responseMessages as never,
        toolsContext: {},
        runtimeContext: {},
      }),
    );
  } catch (error) {
    throw new ContextTransformError(`prepareStep failed, so the call was not made: ${errorMessage(error)}`);
  }
  preparedSteps.set(runtime, { key, prepared });
  return prepared;
}

async function transformContext(transform: ContextTransform, messages: ModelMessage[], signal: AbortSignal): Promise<ModelMessage[]> {
  try {
    const transformed = await transform(messages, { signal });
    if (!Array.isArray(transformed)) throw new Error('it returned no message array');
    return transformed;
  } catch (error) {
    throw new ContextTransformError(`transformContext failed, so the call was not made: ${errorMessage(error)}`);
  }
}

/**
 * The llm actor: one model call per invocation through the runtime's step
 * function. Deltas go straight to the runtime's event sink; the machine only
 * hears about the first chunk and the end. On `llm.abort` it answers at once
 * with what has arrived so far (so nothing already reported is lost) and
 * aborts the call. `beforeLLMCall` hooks may replace the call's model,
 * messages, instructions or tools; the chunk time limits end a hung stream as
 * a `timeout` error.
 *
 * An `error` part does not end the call by itself: bare `streamText` reports a
 * malformed chunk and goes on, and so does this actor. The call fails when the
 * stream then ends without a real finish (see `failedFinish`: none at all,
 * `interrupted`, or `error`), with the last error part as the reason; when it
 * goes on to a real finish the error parts travel with `llm.finish` as
 * `streamErrors` and the step stands.
 */
export function createLlmActor(runtime: AgentRuntime) {
  return fromCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const accumulator = new StepAccumulator(toolCallIdsIn(input.messages), input.messages.length);
    let watchdog: StepWatchdog | undefined;
    let settled = false;
    /** The model a `beforeLLMCall` hook put in place of the agent's, if one did. */
    let replacedModel: ModelIdentity | undefined;
    const settle = (event: LlmActorEvent) => {
      if (settled) return;
      settled = true;
      watchdog?.stop();
      sendBack(replacedModel && (event.type === 'llm.finish' || event.type === 'llm.error') ? { ...event, model: replacedModel } : event);
    };
    const output = (): StepOutput => ({
      message: accumulator.toMessage(),
      toolCalls: accumulator.toolCalls,
      text: accumulator.text(),
    });
    const scope = { runId: input.runId, step: input.step };

    receive((command) => {
      if (command.type !== 'llm.abort') return;
      settle({ type: 'llm.aborted', ...output() });
      controller.abort();
    });

    /** The step's `activeTools` from `prepareStep`, for its `model-call-start`. */
    let stepActiveTools: string[] | undefined;
    const prepareCall = async (): Promise<
      Required<Omit<LLMCallReplacements, 'instructions' | 'messages'>> & Pick<LLMCallReplacements, 'instructions'> & { messages: MessageList; toolChoice?: ToolChoice<ToolSet> }
    > => {
      const history = input.rejectedOutput ? withOutputFeedback(input.messages, input.rejectedOutput) : input.messages;
      // An array is made only for what reads one: a hook of the user's, or a step function of its own (`StepRequest.messages`).
      const messages = runtime.transformContext ? await transformContext(runtime.transformContext, messageArray(history), controller.signal) : history;
      const prepared = runtime.prepareStep ? await prepareStepOnce(runtime, input, messageArray(messages)) : {};
      stepActiveTools = prepared.activeTools;
      let call = {
        model: prepared.model ?? runtime.model,
        messages: prepared.messages ?? messages,
        instructions: prepared.instructions ?? input.instructions,
        tools: activeToolSet(runtime.tools, prepared.activeTools),
        ...(prepared.toolChoice !== undefined ? { toolChoice: prepared.toolChoice } : {}),
      };
      const hooks = runtime.hooks.beforeLLMCall ?? [];
      for (const [index, hook] of hooks.entries()) {
        const outcome = await callHook(runtime, scope, 'beforeLLMCall', index, (signal) => hook({ ...scope, signal, attempt: input.attempt, ...call, messages: messageArray(call.messages) }), input.hookMs, controller.signal);
        if (settled) return call;
        if (outcome.ok) call = { ...call, ...(outcome.value ?? {}) };
      }
      return call;
    };

    const afterCall = async (finish: Extract<LlmActorEvent, { type: 'llm.finish' }>) => {
      for (const [index, hook] of (runtime.hooks.afterLLMCall ?? []).entries()) {
        const args = { ...scope, attempt: input.attempt, text: finish.text, toolCalls: finish.toolCalls, finishReason: finish.finishReason, usage: finish.usage };
        await callHook(runtime, scope, 'afterLLMCall', index, (signal) => hook({ ...args, signal }), input.hookMs, controller.signal);
      }
    };

    const consume = async () => {
      if (runtime.admit) {
        try {
          await runtime.admit('model-call');
        } catch (error) {
          // The run is stopping already; should the stop not reach this call, it fails here, unmade.
          settle({ type: 'llm.error', error: { kind: 'session-write', message: `The model call was not made: ${errorMessage(error)}` } });
          return;
        }
        if (settled) return;
      }
      const call = await prepareCall();
      if (settled) return;
      if (call.model !== runtime.model) replacedModel = modelIdentity(call.model);
      watchdog = new StepWatchdog(input.limits, (message) => {
        settle({ type: 'llm.error', error: { kind: 'timeout', message } });
        controller.abort();
      });
      let started = false;
      const streamErrors: RunError[] = [];
      const callModel = modelIdentity(call.model);
      // A number until the finish needs it as text, and only then if the provider gave no timestamp of its own.
      const startedAt = Date.now();
      let warnings: CallWarning[] = [];
      let response: Partial<StepResponse> = {};
      // A model that drops the schema from its response format gets it in the instructions, and a warning says so.
      const structured = runtime.output
        ? await structuredOutputInstructions({ model: call.model, instructions: call.instructions, output: runtime.output })
        : { instructions: call.instructions, warnings: [] };
      if (settled) return;
      // Made only when a tool of the call has an input callback: the delta cases below cost one check without.
      const inputCallbacks = hasInputCallbacks(call.tools) ? new ToolInputCallbacks(call.tools, messageArray(call.messages), controller.signal) : undefined;
      // What prepareStep or a hook set for this step, for `model-call-start` (onStepStart's arguments): built only when a `stream-start` needs it.
      const stepSettings = () => ({
        ...(stepActiveTools !== undefined ? { activeTools: stepActiveTools } : {}),
        ...(call.toolChoice !== undefined ? { toolChoice: call.toolChoice } : {}),
        ...(call.instructions !== input.instructions && call.instructions !== undefined ? { instructions: call.instructions } : {}),
      });
      const { messages: callMessages, ...settings } = call;
      const request = { ...settings, instructions: structured.instructions, ...(runtime.output ? { output: runtime.output } : {}), abortSignal: controller.signal };
      // The history goes as an array made only if the step reads `messages` (the built-in one reads the history itself).
      const parts = runtime.step(MessageHistory.isHistory(callMessages) ? withLazyMessages(request, callMessages) : { ...request, messages: callMessages as ModelMessage[] });
      for await (const part of parts) {
        if (settled) return;
        const bodyChunk = isBodyChunk(part);
        if (bodyChunk) watchdog.chunk();
        if (!started && bodyChunk && part.type !== 'error' && part.type !== 'finish') {
          started = true;
          sendBack({ type: 'llm.firstChunk' });
        }
        switch (part.type) {
          case 'text-delta':
          case 'reasoning-delta':
            accumulator.add(part);
            // Spelled out, not spread from `scope`: this runs for every delta.
            runtime.emit({ type: part.type, runId: scope.runId, step: scope.step, id: part.id, text: part.text, attempt: input.attempt });
            break;
          case 'stream-start':
            warnings = [...part.warnings, ...structured.warnings];
            runtime.emit({ type: 'model-call-start', ...scope, attempt: input.attempt, warnings, model: callModel, ...stepSettings() });
            break;
          case 'response-metadata':
            response = {
              ...response,
              ...(part.id !== undefined ? { id: part.id } : {}),
              ...(part.modelId !== undefined ? { modelId: part.modelId } : {}),
              ...(part.timestamp !== undefined ? { timestamp: part.timestamp.toISOString() } : {}),
            };
            break;
          case 'tool-input-start':
            runtime.emit({ type: 'tool-input-start', ...scope, attempt: input.attempt, toolCallId: part.id, toolName: part.toolName });
            if (inputCallbacks) await inputCallbacks.start(part.id, part.toolName);
            break;
          case 'tool-input-delta':
            runtime.emit({ type: 'tool-input-delta', ...scope, attempt: input.attempt, toolCallId: part.id, delta: part.delta });
            if (inputCallbacks) await inputCallbacks.delta(part.id, part.delta);
            break;
          case 'tool-call': {
            accumulator.add(part);
            const parsed = accumulator.toolCalls.at(-1)!;
            runtime.emit({
              type: 'tool-input-available',
              ...scope,
              attempt: input.attempt,
              toolCallId: parsed.toolCallId,
              toolName: parsed.toolName,
              input: parsed.input,
              ...(parsed.invalid ? { invalid: true, error: { name: parsed.errorName ?? 'Error', message: parsed.error ?? 'invalid tool call' } } : {}),
            });
            if (inputCallbacks) await inputCallbacks.available(parsed.toolCallId, parsed.toolName, parsed.input, parsed.invalid === true);
            break;
          }
          case 'finish': {
            watchdog.stop();
            const usage = usageFrom(part.usage);
            const cost = await stepCost(call.model, usage);
            // A priced call the provider reported no usage for costs $0 here: said, so that a budget is not trusted blindly.
            if (cost !== undefined && isUsageUnreported(part.usage)) warnings = [...warnings, UNREPORTED_USAGE_WARNING];
            // A report that does not add up is kept as given; priced, the catalogue refuses it and the call costs $0: said, as above.
            const problem = usageProblem(usage);
            if (problem !== undefined) warnings = [...warnings, inconsistentUsageWarning(problem)];
            // What the call billed, for an error that ends it: made only when one does.
            const billed = () => (cost !== undefined ? { usage, cost } : { usage });
            const failure = failedFinish(part, streamErrors.at(-1));
            if (failure !== undefined) {
              settle({ type: 'llm.error', error: failure, ...billed() });
              return;
            }
            // Built field by field in the order of a spread of `output()` and the optional fields: this runs at every step.
            const finish = {
              type: 'llm.finish',
              message: accumulator.toMessage(),
              toolCalls: accumulator.toolCalls,
              text: accumulator.text(),
              finishReason: part.finishReason,
            } as Extract<LlmActorEvent, { type: 'llm.finish' }>;
            if (part.rawFinishReason !== undefined) finish.rawFinishReason = part.rawFinishReason;
            finish.usage = usage;
            if (cost !== undefined) finish.cost = cost;
            if (streamErrors.length > 0) finish.streamErrors = streamErrors;
            finish.callModel = callModel;
            finish.response = { id: response.id ?? `${input.runId}-${input.step}-${input.attempt}`, modelId: response.modelId ?? callModel.modelId, timestamp: response.timestamp ?? new Date(startedAt).toISOString() };
            finish.warnings = warnings;
            if (runtime.output && isFinalAnswer(finish)) {
              const parsed = await parseFinalAnswer(runtime.output, finish, call.model);
              if (!parsed.ok) {
                settle({ type: 'llm.error', error: parsed.error, rejected: { text: finish.text, problem: parsed.problem }, ...billed() });
                return;
              }
              finish.output = parsed.value;
            }
            // Without afterLLMCall hooks there is nothing to wait for: no promise per step.
            if (runtime.hooks.afterLLMCall !== undefined && runtime.hooks.afterLLMCall.length > 0) await afterCall(finish);
            settle(finish);
            return;
          }
          case 'error':
            streamErrors.push(classifyStreamError(part.error, started));
            break;
          case 'provider-tool-input-start':
          case 'provider-tool-call':
          case 'provider-tool-result':
          case 'source':
          case 'file':
          case 'reasoning-file':
            accumulator.add(part);
            runtime.emit(providerPartEvent(part, scope, input.attempt));
            break;
          default:
            accumulator.add(part);
        }
      }
      settle({ type: 'llm.error', error: streamErrors.at(-1) ?? { kind: 'stream', message: 'The model stream ended without a finish part.' } });
    };

    consume().catch((error: unknown) => {
      if (error instanceof ToolInputCallbackError) {
        // As streamText: the call fails with the callback's error, and no retry would call it differently.
        settle({ type: 'llm.error', error: withCause({ kind: 'unknown', message: error.message, retryable: false }, error.cause) });
        controller.abort();
        return;
      }
      settle({
        type: 'llm.error',
        error: error instanceof ContextTransformError ? { kind: 'invalid-request', message: error.message } : classifyError(error),
      });
    });

    return () => {
      // Aborting a call that already finished costs a few microseconds per step for nothing.
      const finished = settled;
      settled = true;
      watchdog?.stop();
      if (!finished) controller.abort();
    };
  });
}
