import {
  createUIMessageStreamResponse,
  toUIMessageStream,
  type Agent as AISDKAgent,
  type AgentCallParameters,
  type GenerateTextResult,
  type ModelMessage,
  type StreamTextResult,
  type StreamTextTransform,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import type { Agent } from '../agent.js';
import { SYSTEM_IN_HISTORY } from '../core/message-shape.js';
import { causeOf } from '../errors/error-cause.js';
import type { AgentEvent } from '../core/events.js';
import type { RunResult } from '../core/result.js';
import { StepResultRecorder } from '../results/step-result-recorder.js';
import { generateTextResult, type RecordedSteps } from '../results/generate-text-result.js';
import { TransformedText } from './transformed-text.js';
import { assertHonouredCallParameters } from './call-parameters.js';
import { approvalAnswers, type ApprovalAnswer } from './approval-answers.js';
import { toolCallIdOf } from '../results/approval-id.js';
import { AnswerHold } from './answer-hold.js';
import { newMessagesStart, rememberCall } from './conversation-continuity.js';
import { PartBuffer } from './part-buffer.js';
import { finishReasonOf, isOutcomeToReport, outcomeMessage, TextStreamPartMapper } from './text-stream-parts.js';

type Part = TextStreamPart<ToolSet>;

/**
 * What `toAISDKAgent` uses of an agent: an agent made by `createAgent`, or anything that runs a
 * session elsewhere and reports its events (a web node that sends runs to workers and reads their
 * events from Redis, as examples/chat-server/scaled does). `approve`, `deny` and `pendingApprovals`
 * are needed only to take approval answers in the messages (`addToolApprovalResponse`); `output`
 * only to keep an answer the agent's `output` rejects out of the stream (and for `onStepStart`'s
 * `output`); `instructions` only for `onStepStart`'s `instructions`.
 */
export type RunnableAgent = Pick<Agent, 'events$' | 'messages' | 'run' | 'abort' | 'tools' | 'sessionId'> &
  Partial<Pick<Agent, 'approve' | 'deny' | 'pendingApprovals' | 'output' | 'instructions'>>;

type CallParameters = Omit<AgentCallParameters<never, ToolSet>, 'prompt' | 'messages'> & { prompt?: string | ModelMessage[]; messages?: ModelMessage[] };

/**
 * What a call adds to the agent's history. A chat UI sends the whole
 * conversation every time; the agent keeps its own history, so only the new
 * messages at the end (the user messages after the last assistant or tool
 * message) are the prompt — unless the agent has no history yet, then all of
 * them are.
 */
export function newMessages(history: readonly ModelMessage[], prompt: string | ModelMessage[]): string | ModelMessage[] {
  if (typeof prompt === 'string' || history.length === 0) return prompt;
  let start = prompt.length;
  while (start > 0 && prompt[start - 1]!.role === 'user') start--;
  return prompt.slice(start);
}

/** How one `generate()` or `stream()` call ended. */
interface CallEnd {
  /** `waiting`: the run waits for approval answers, which the next call brings. */
  kind: 'finished' | 'waiting' | 'failed' | 'aborted';
  result?: RunResult;
  /** What `generate()` rejects with (`failed`, `aborted`). */
  error?: unknown;
  recorder: StepResultRecorder;
}

/**
 * One call: a new run on the prompt's new messages, or — when the messages answer approval
 * requests — the waiting run, continued with those answers. Its events become text stream parts
 * until the run ends or waits for a person again; the call's callbacks are called on the way.
 */
function startCall(
  agent: RunnableAgent,
  parameters: CallParameters,
  options: AISDKAgentOptions,
  /** Whether this call's step ends and its end are told from the run's events (false: the caller tells them, from a transformed stream). */
  notifyEnds = true,
): { parts: PartBuffer<Part>; ended: Promise<CallEnd>; recorder: StepResultRecorder } {
  const parts = new PartBuffer<Part>();
  const tools = agent.tools;
  const mapper = new TextStreamPartMapper(tools);
  const hold = new AnswerHold(agent.output !== undefined);
  const recorder = new StepResultRecorder(tools);
  const messages = parameters.prompt ?? parameters.messages ?? [];
  const answers = typeof messages === 'string' ? [] : approvalAnswers(messages);
  const signal = parameters.abortSignal;
  let runId: string | undefined;
  let waitingStep: number | undefined;
  /** What the model was sent for the step under way: the messages the tool callbacks get. */
  let stepInput: ModelMessage[] = [];
  let settle!: (end: CallEnd) => void;
  const ended = new Promise<CallEnd>((resolve) => (settle = resolve));
  let done = false;

  const end = (call: Omit<CallEnd, 'recorder'>, last: Part[]) => {
    if (done) return;
    done = true;
    for (const part of [...hold.release(), ...last]) parts.push(part);
    subscription.unsubscribe();
    signal?.removeEventListener('abort', onAbort);
    parts.close();
    settle({ ...call, recorder });
    if (notifyEnds && (call.kind === 'waiting' || call.kind === 'finished')) void notifyFinish(parameters, recorder, call.result);
  };

  const onEvent = (event: AgentEvent) => {
    if (!('runId' in event)) return;
    if (event.type === 'run-start' && runId === undefined) {
      runId = event.runId;
      // The call's messages are in the history now: the next call is checked against them.
      if (typeof messages !== 'string') rememberCall(agent, messages);
      if (signal?.aborted) onAbort();
    }
    if (runId === undefined && answers.length > 0) runId = event.runId;
    if (event.runId !== runId) return;
    recorder.event(event);
    for (const part of hold.pass(event, mapper.map(event))) parts.push(part);
    if (event.type === 'model-call-start') stepInput = agent.messages;
    notifyStep(parameters, recorder, event, agent, stepInput, notifyEnds);
    if (event.type === 'approval-request') waitingStep = event.step;
    if (options.approvals !== 'in-stream' && event.type === 'finish-step' && event.step === waitingStep && (agent.pendingApprovals?.length ?? 1) > 0) {
      end({ kind: 'waiting' }, [{ type: 'finish', finishReason: event.finishReason ?? 'tool-calls', rawFinishReason: event.rawFinishReason, totalUsage: recorder.totalUsage }]);
    }
    if (event.type === 'run-end') end(...runEnd(event.result));
  };

  const runEnd = (result: RunResult): [Omit<CallEnd, 'recorder'>, Part[]] => {
    if (result.outcome === 'aborted') {
      const error: unknown = signal?.aborted ? signal.reason : Object.assign(new Error(result.error?.message ?? 'The run was aborted.'), { name: 'AbortError' });
      return [{ kind: 'aborted', result, error }, [{ type: 'abort', reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }]];
    }
    if (result.outcome === 'failed') {
      mapper.dropHeldStart();
      const error = causeOf(result.error) ?? new Error(outcomeMessage(result));
      return [{ kind: 'failed', result, error }, [...mapper.closeBlocks(), { type: 'error', error }]];
    }
    const last: Part[] = [...mapper.closeBlocks()];
    if (isOutcomeToReport(result.outcome)) last.push({ type: 'error', error: new Error(outcomeMessage(result)) });
    const finalStep = recorder.steps.at(-1);
    last.push({ type: 'finish', finishReason: finishReasonOf(result), rawFinishReason: finalStep?.rawFinishReason, totalUsage: recorder.totalUsage, outcome: result.outcome } as Part);
    return [{ kind: 'finished', result }, last];
  };

  // Only the call's own run: before its run starts (or when it cannot, the agent being busy) the agent's run is another's.
  const onAbort = () => {
    if (runId !== undefined || answers.length > 0) agent.abort('the caller aborted the request');
  };
  const subscription = agent.events$.subscribe(onEvent);
  parts.push({ type: 'start' });
  signal?.addEventListener('abort', onAbort, { once: true });
  const fail = (error: unknown) => end({ kind: 'failed', error }, [{ type: 'error', error }]);
  if (answers.length > 0) {
    try {
      answer(agent, answers);
      rememberCall(agent, messages as ModelMessage[]);
    } catch (error) {
      fail(error);
    }
  } else {
    const prompt = promptOf(agent, messages, fail);
    // The run's end arrives as its run-end event; the promise only says why a run never started.
    if (prompt !== undefined) {
      agent.run(prompt).catch((error: unknown) => {
        if (runId === undefined) fail(error);
      });
    }
  }
  if (signal?.aborted && !done) onAbort();
  return { parts, ended, recorder };
}

/**
 * What a call adds to the agent's history: its new messages, when they continue the conversation of
 * the agent's previous call; if not, the call `fail`s with a `ConversationMismatchError` and nothing.
 */
function promptOf(agent: RunnableAgent, messages: string | ModelMessage[], fail: (error: unknown) => void): string | ModelMessage[] | undefined {
  if (typeof messages === 'string') return messages;
  try {
    // One before the new messages would be dropped without a word, as they are taken as the agent's history.
    const system = messages.findIndex((message) => message.role === 'system');
    if (system !== -1) throw new TypeError(`toAISDKAgent: message ${system} is a system message: ${SYSTEM_IN_HISTORY}.`);
    const start = newMessagesStart(agent, messages);
    if (agent.messages.length === 0) return messages;
    if (start === messages.length) throw new TypeError(`toAISDKAgent: the messages end with no new user message (nor approval answers)${clientOutputNote(messages)}: a run of a loopchart agent starts from a new user message.`);
    return messages.slice(start);
  } catch (error) {
    fail(error);
    return undefined;
  }
}

/**
 * What a call ending in tool outputs the client gave (`addToolOutput` for a tool without `execute`)
 * is told: `ToolLoopAgent` goes on from them, a loopchart agent cannot (docs/ai-sdk.md).
 */
function clientOutputNote(messages: readonly ModelMessage[]): string {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return '';
  const results = last.content.filter((part) => part.type === 'tool-result');
  if (results.length === 0) return '';
  const calls = results.map((part) => `${part.toolCallId} (${part.toolName})`).join(', ');
  return `; they end with the output of tool call ${calls}, which the client gave (addToolOutput): a loopchart agent runs every tool call itself, and answers a tool without execute with an error, so no output can come from the client`;
}

/** Approval answers given through the messages, as `ToolLoopAgent` takes them, passed to the waiting run. */
function answer(agent: RunnableAgent, answers: ApprovalAnswer[]): void {
  if (!agent.approve || !agent.deny) throw new TypeError('This agent takes no approval answers in messages: approve and deny its calls directly.');
  // An answer to a request that no longer waits (an automatic one, one answered before) changes nothing, as
  // with ToolLoopAgent; when none of them waits, approve() says which calls do.
  const pending = new Set(agent.pendingApprovals ?? answers.map(({ approvalId }) => toolCallIdOf(approvalId)));
  const current = answers.filter(({ approvalId }) => pending.has(toolCallIdOf(approvalId)));
  for (const { approvalId, approved, reason } of current.length > 0 ? current : answers) {
    if (approved) agent.approve(toolCallIdOf(approvalId));
    else agent.deny(toolCallIdOf(approvalId), reason);
  }
}

/**
 * `onStepStart`, `onToolExecutionStart`, `onToolExecutionEnd` and `onStepEnd` (`onStepFinish`) of
 * one call, with `ToolLoopAgent`'s arguments.
 */
function notifyStep(parameters: CallParameters, recorder: StepResultRecorder, event: AgentEvent, agent: RunnableAgent, stepInput: ModelMessage[], notifyStepEnd: boolean): void {
  if (event.type === 'tool-execution-start') {
    // The call as the step's content has it (dynamic, title, toolMetadata), as ToolLoopAgent gives it.
    const callPart = recorder.openContent().find((part) => part.type === 'tool-call' && part.toolCallId === event.toolCallId);
    void call(parameters.onToolExecutionStart ?? parameters.experimental_onToolCallStart, {
      callId: event.runId,
      messages: stepInput,
      toolCall: callPart ?? { type: 'tool-call', toolCallId: event.toolCallId, toolName: event.toolName, input: event.input },
      toolContext: undefined,
    } as never);
  }
  if (event.type === 'tool-result' && !(event.isError && event.denied)) {
    const output = recorder.openContent().find((part) => (part.type === 'tool-result' || part.type === 'tool-error') && part.toolCallId === event.toolCallId);
    const callPart = recorder.openContent().find((part) => part.type === 'tool-call' && part.toolCallId === event.toolCallId);
    if (output && callPart && !('invalid' in callPart && callPart.invalid)) {
      const { type: _type, ...toolCall } = callPart;
      void call(parameters.onToolExecutionEnd ?? parameters.experimental_onToolCallFinish, {
        callId: event.runId,
        messages: stepInput,
        toolCall: { type: 'tool-call', ...toolCall },
        toolContext: undefined,
        toolOutput: output,
        toolExecutionMs: event.durationMs,
      } as never);
    }
  }
  if (event.type === 'model-call-start' && event.attempt === 1) {
    void call(parameters.onStepStart ?? parameters.experimental_onStepStart, {
      callId: event.runId,
      provider: event.model?.provider ?? 'unknown',
      modelId: event.model?.modelId ?? 'unknown',
      stepNumber: recorder.steps.length,
      tools: agent.tools,
      // prepareStep's, carried by the event; a loopchart agent has no toolChoice or activeTools of its own.
      toolChoice: event.toolChoice,
      activeTools: event.activeTools,
      // loopchart has no toolOrder, and refuses providerOptions (they go with the model).
      toolOrder: undefined,
      steps: [...recorder.steps],
      providerOptions: undefined,
      output: agent.output,
      runtimeContext: {},
      toolsContext: {},
      instructions: event.instructions ?? agent.instructions,
      messages: agent.messages,
    });
  }
  if (event.type === 'finish-step' && notifyStepEnd) notifyStepFinish(parameters, recorder.steps.at(-1));
}

/** `onStepEnd` (`onStepFinish`) of one call, with the step as `ToolLoopAgent` gives it. */
function notifyStepFinish(parameters: CallParameters, step: StepResultRecorder['steps'][number] | undefined): void {
  void call(parameters.onStepEnd ?? parameters.onStepFinish, step);
}

/** `onEnd` (`onFinish`) of one call: the call's result, as `ToolLoopAgent` gives it. */
async function notifyFinish(parameters: CallParameters, recorder: RecordedSteps, result: RunResult | undefined): Promise<void> {
  const callback = parameters.onEnd ?? parameters.onFinish;
  if (!callback || recorder.steps.length === 0) return;
  const generated = generateTextResult(recorder, result);
  await call(callback, {
    callId: recorder.steps.at(-1)!.callId,
    stepNumber: recorder.steps.length - 1,
    model: generated.finalStep.model,
    toolsContext: {},
    runtimeContext: {},
    content: generated.content,
    text: generated.text,
    reasoning: generated.finalStep.reasoning,
    reasoningText: generated.reasoningText,
    files: generated.files,
    sources: generated.sources,
    toolCalls: generated.toolCalls,
    staticToolCalls: generated.staticToolCalls,
    dynamicToolCalls: generated.dynamicToolCalls,
    toolResults: generated.toolResults,
    staticToolResults: generated.staticToolResults,
    dynamicToolResults: generated.dynamicToolResults,
    finishReason: generated.finishReason,
    rawFinishReason: generated.rawFinishReason,
    usage: generated.usage,
    totalUsage: generated.totalUsage,
    warnings: generated.warnings,
    request: generated.request,
    response: generated.response,
    providerMetadata: undefined,
    responseMessages: generated.responseMessages,
    steps: generated.steps,
    finalStep: generated.finalStep,
  });
}

/** Calls an app's callback; like the AI SDK, a callback's throw does not break the call. */
async function call<T>(callback: ((event: T) => unknown) | undefined, event: T | undefined): Promise<void> {
  if (!callback || event === undefined) return;
  try {
    await callback(event);
  } catch {
    // The AI SDK's notify() swallows callback errors as well.
  }
}

/** Told of each part the transforms are given, of each the last one gives, and of the transformed stream's end. */
interface TransformedPartsWatcher {
  source(part: Part): void;
  part(part: Part): void;
  done(): void;
}

/**
 * `stream({ experimental_transform })` as `streamText` applies it: each transform is made once,
 * with the agent's `tools` and `stopStream`, and the parts pass through them in order; every
 * reader of the result (`fullStream`, `textStream`, `toUIMessageStream`) reads what the last one
 * gives. `stopStream` stops the parts going into the transforms (so they flush) and ends the run
 * as an abort does, as `streamText` stops its steps. Without a transform, the parts as they are.
 */
function transformedParts(parts: PartBuffer<Part>, transforms: StreamTextTransform<ToolSet>[], agent: RunnableAgent, watcher: TransformedPartsWatcher): PartBuffer<Part> {
  const transformed = new PartBuffer<Part>();
  let running = true;
  let stopSource!: () => void;
  const stopped = new Promise<void>((resolve) => (stopSource = resolve));
  const reader = parts.readable().getReader();
  let stream = new ReadableStream<Part>(
    {
      async pull(controller) {
        const next = await Promise.race([reader.read(), stopped.then(() => ({ done: true as const, value: undefined }))]);
        if (next.done || !running) {
          controller.close();
          void reader.cancel().catch(() => undefined);
        } else {
          watcher.source(next.value);
          controller.enqueue(next.value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const stopStream = () => {
    if (!running) return;
    running = false;
    stopSource();
    agent.abort('stopStream() was called by a stream transform');
  };
  for (const each of transforms) stream = stream.pipeThrough(each({ tools: agent.tools, stopStream }));
  void (async () => {
    try {
      for await (const part of stream) {
        transformed.push(part);
        watcher.part(part);
      }
    } catch (error) {
      transformed.push({ type: 'error', error });
    } finally {
      transformed.close();
      watcher.done();
    }
  })();
  return transformed;
}

function textOf(stream: ReadableStream<Part>): ReadableStream<string> {
  return stream.pipeThrough(
    new TransformStream<Part, string>({
      transform(part, controller) {
        if (part.type === 'text-delta') controller.enqueue(part.text);
      },
    }),
  );
}

/** A promise that rejects like the AI SDK's awaited stream fields when the call failed, without an unhandled rejection. */
function awaited<T>(ended: Promise<CallEnd>, read: (end: CallEnd) => T | Promise<T>): Promise<T> {
  const promise = ended.then((end) => {
    if (end.kind === 'aborted') throw end.error;
    if (end.kind === 'failed') throw noOutput();
    return read(end);
  });
  promise.catch(() => undefined);
  return promise;
}

function noOutput(): Error {
  return Object.assign(new Error('No output generated. Check the stream for errors.'), { name: 'AI_NoOutputGeneratedError' });
}

/** Options of {@link toAISDKAgent}. */
export interface AISDKAgentOptions {
  /** The agent's id (default: its session id). */
  id?: string;
  /**
   * How approval requests are answered. `messages` (default), as with `ToolLoopAgent`: the call ends
   * at the request and the next call's messages carry the answers (`addToolApprovalResponse` in
   * `useChat`). `in-stream`: the stream stays open while the run waits, and the app answers through
   * its own endpoint (`agent.approve` / `agent.deny`); the results follow in the same stream.
   */
  approvals?: 'messages' | 'in-stream';
}

/**
 * Throws a `TypeError` naming an option of `toAISDKAgent` it does not know, or a value it does not
 * take: a misspelt `approvals: 'in_stream'` would otherwise be the default without a word.
 */
function assertAISDKAgentOptions(options: AISDKAgentOptions): void {
  const known = new Set(['id', 'approvals']);
  const unknown = Object.keys(options).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new TypeError(`toAISDKAgent: unknown option ${unknown.join(', ')} (it takes id and approvals)`);
  const { id, approvals } = options as { id?: unknown; approvals?: unknown };
  if (id !== undefined && typeof id !== 'string') throw new TypeError(`toAISDKAgent: id must be a string, not ${typeof id}`);
  if (approvals !== undefined && approvals !== 'messages' && approvals !== 'in-stream') {
    throw new TypeError(`toAISDKAgent: approvals must be 'messages' (the default) or 'in-stream', not ${JSON.stringify(approvals)}`);
  }
}

/**
 * The agent as an AI SDK 7 `Agent` (`version: 'agent-v1'`), so that
 * `createAgentUIStream`, `createAgentUIStreamResponse` and `useChat` work with
 * it unchanged and see what `ToolLoopAgent` would show them: `generate()`
 * resolves with `steps` as `StepResult`s, `toolCalls`, `toolResults`,
 * `responseMessages` and `output`, and rejects with the provider's error (or an
 * `AbortError`) as `ToolLoopAgent` does; `stream()` gives the same parts in the
 * same order. A call whose tools wait for approval ends at the request (finish
 * reason `tool-calls`) while the run waits in `awaitingApproval`; the next call,
 * whose messages carry the answers (`addToolApprovalResponse` in `useChat`),
 * continues that run. The agent keeps its own history, so a call whose messages do not continue
 * the previous call's (a `regenerate()`, an edited message, another chat's) is refused with a
 * `ConversationMismatchError`. The differences that remain are listed in docs/ai-sdk.md.
 *
 * @example
 * ```ts
 * import { createAgentUIStreamResponse } from 'ai';
 *
 * const agent = createAgent({ model, tools });
 * export async function POST(request: Request) {
 *   const { messages } = await request.json();
 *   return createAgentUIStreamResponse({ agent: toAISDKAgent(agent), uiMessages: messages });
 * }
 * ```
 */
export function toAISDKAgent(agent: RunnableAgent, options: AISDKAgentOptions = {}): AISDKAgent<never, ToolSet> {
  assertAISDKAgentOptions(options);
  return {
    version: 'agent-v1',
    id: options.id ?? agent.sessionId,
    tools: agent.tools,
    async generate(parameters) {
      assertHonouredCallParameters(parameters);
      const { ended } = startCall(agent, parameters, options);
      const end = await ended;
      if (end.kind === 'failed' || end.kind === 'aborted') throw end.error;
      return generateTextResult(end.recorder, end.result) as unknown as GenerateTextResult<ToolSet, never, never>;
    },
    async stream(parameters) {
      assertHonouredCallParameters(parameters);
      const { experimental_transform: transform } = parameters;
      const transforms = transform === undefined ? [] : Array.isArray(transform) ? transform : [transform];
      // With transforms, the steps, the awaited fields and the step and end callbacks are what the transforms gave, as with streamText.
      const text = transforms.length > 0 ? new TransformedText() : undefined;
      const call = startCall(agent, parameters, options, text === undefined);
      const { ended } = call;
      let parts = call.parts;
      let recorded = async (end: CallEnd): Promise<RecordedSteps> => end.recorder;
      if (text !== undefined) {
        let transformedEnd!: () => void;
        const transformed = new Promise<void>((resolve) => (transformedEnd = resolve));
        let finishedSteps = 0;
        parts = transformedParts(call.parts, transforms, agent, {
          source: (part) => text.source(part),
          part(part) {
            text.observe(part);
            if (part.type === 'finish-step') notifyStepFinish(parameters, text.step(call.recorder, finishedSteps++));
          },
          done: transformedEnd,
        });
        recorded = async (end) => {
          await transformed;
          return text.rebuild(end.recorder);
        };
        void ended.then(async (end) => {
          if (end.kind === 'waiting' || end.kind === 'finished') await notifyFinish(parameters, await recorded(end), end.result);
        });
      }
      const result = awaited(ended, async (end) => generateTextResult(await recorded(end), end.result));
      const field = <K extends keyof ReturnType<typeof generateTextResult>>(key: K) => {
        const value = result.then((generated) => generated[key]);
        value.catch(() => undefined);
        return value;
      };
      // streamText's output is the last step's text when there is no structured output, however the call ended.
      const output = result.then((generated) => (generated.loopchart?.output !== undefined ? generated.loopchart.output : generated.finalStep.text));
      output.catch(() => undefined);
      const streamResult = {
        get stream() {
          return parts.readable();
        },
        get fullStream() {
          return parts.readable();
        },
        get textStream() {
          return textOf(parts.readable());
        },
        text: field('text'),
        content: field('content'),
        reasoning: field('reasoning'),
        reasoningText: field('reasoningText'),
        files: field('files'),
        sources: field('sources'),
        toolCalls: field('toolCalls'),
        staticToolCalls: field('staticToolCalls'),
        dynamicToolCalls: field('dynamicToolCalls'),
        toolResults: field('toolResults'),
        staticToolResults: field('staticToolResults'),
        dynamicToolResults: field('dynamicToolResults'),
        finishReason: field('finishReason'),
        rawFinishReason: field('rawFinishReason'),
        usage: field('usage'),
        totalUsage: field('totalUsage'),
        warnings: field('warnings'),
        request: field('request'),
        response: field('response'),
        responseMessages: field('responseMessages'),
        providerMetadata: field('providerMetadata'),
        steps: field('steps'),
        finalStep: field('finalStep'),
        output,
        /** The loopchart `RunResult` of a call that ended the run (undefined while the run waits for approval). */
        loopchart: ended.then((end) => end.result),
        consumeStream: async () => {
          await ended;
        },
        toUIMessageStream: (uiOptions: Omit<Parameters<typeof toUIMessageStream>[0], 'stream' | 'tools'> = {}) =>
          toUIMessageStream({ ...uiOptions, stream: parts.readable(), tools: agent.tools }),
        toUIMessageStreamResponse: (uiOptions: Omit<Parameters<typeof toUIMessageStream>[0], 'stream' | 'tools'> = {}) =>
          createUIMessageStreamResponse({ stream: toUIMessageStream({ ...uiOptions, stream: parts.readable(), tools: agent.tools }) }),
      };
      return streamResult as unknown as StreamTextResult<ToolSet, never, never>;
    },
  };
}
