import type { LanguageModelV4StreamPart, LanguageModelV4ToolCall } from '@ai-sdk/provider';
import { ToolCallNotFoundForApprovalError, type Instructions } from 'ai';
import { aiInternals, DIRECT_STEP_INTERNALS, missingAiInternals, TESTED_AI_RANGE } from './ai-internals.js';
import { ProviderApprovalRequestError } from '../errors/provider-approval-request-error.js';

const missingInternals = missingAiInternals(DIRECT_STEP_INTERNALS);
import { normalizeStreamProviderError } from './direct-stream-error.js';
import { prepareToolsOnce } from './direct-tools.js';
import type { StepFunction, StepPart, StepRequest } from '../core/step.js';
import { stepToolCall } from './step-tool-call.js';
import { providerToolCall, providerToolResult } from './provider-tool-result.js';
import { convertPromptIncrementally } from './incremental-prompt.js';
import { messagesOf } from '../core/lazy-messages.js';

/**
 * A step that reads the provider stream itself: the same preparation as
 * `experimental_streamLanguageModelCall` (the AI SDK's `standardizePrompt`,
 * `convertToLanguageModelPrompt`, `prepareTools`, `prepareToolChoice`), then
 * `doStream`, then each provider part mapped straight to a `StepPart` — tool
 * calls through the SDK's `parseToolCall`, usage through
 * `asLanguageModelUsage`, error parts through the SDK's error normalisation.
 *
 * It yields the same parts as {@link streamLanguageModelCallStep} for the same
 * stream (test/direct-step.test.ts holds the two to that), without what that
 * call does per chunk and the step does not use: the two `TransformStream`
 * hops, collecting the call's content, chunk timing, and a new object per
 * chunk for chunks the step drops. Its per-delta work is one `read()` and the
 * `StepPart` itself.
 *
 * Differences, all outside what the step reports for a well-behaved provider:
 * - each tool's JSON Schema is prepared once per tool object (also across
 *   tool sets that share it), not once per call (see `prepareToolsOnce`);
 * - `file` and `reasoning-file` parts are dropped without resolving (and so
 *   downloading) their data, since a step has no part for them;
 * - an abort before the `finish` part also cancels the provider stream, so a
 *   provider that ignores the signal cannot keep the step waiting; the step
 *   then throws the signal's reason, as a fetch-based provider's stream does.
 *   (After `finish` an abort changes nothing: the llm actor aborts every call
 *   it stops, finished ones included.)
 *
 * The returned iterable is single-use and expects one consumer calling `next`
 * after the previous call settled, as `for await` does.
 */
export const directStep: StepFunction = (request) => new DirectStep(request);

type Result = IteratorResult<StepPart, undefined>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

const ignore = (): void => {};

class DirectStep implements AsyncIterableIterator<StepPart, undefined> {
  private reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
  private started = false;
  /** Set when an abort cancelled the provider stream. */
  private cancelledByAbort = false;
  /** Set once the `finish` part is out: the call is complete, and an abort no longer cancels anything. */
  private finished = false;
  private instructions: Instructions | undefined;
  /** Every tool call parsed so far (provider-executed ones included), for `tool-approval-request` parts. */
  private toolCallIds: Set<string> | undefined;
  /** The provider-executed calls: their inputs for their results (as the AI SDK gives a result its call's input), their names for an approval request. */
  private providerCalls: Map<string, { input: unknown; toolName: string }> | undefined;

  constructor(private readonly request: StepRequest) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<Result> {
    const reader = this.reader;
    if (reader !== undefined) return reader.read().then(this.onRead, this.onReadError);
    if (!this.started) return this.open();
    return Promise.resolve(DONE);
  }

  /** Called by `for await` when its body leaves early: cancels the provider stream. */
  return(): Promise<Result> {
    const reader = this.reader;
    this.close();
    if (reader !== undefined) reader.cancel().catch(ignore);
    return Promise.resolve(DONE);
  }

  private async open(): Promise<Result> {
    this.started = true;
    const { request } = this;
    let stream: ReadableStream<LanguageModelV4StreamPart>;
    try {
      if (missingInternals.length > 0) {
        throw new Error(
          `directStep needs ai/internal.${missingInternals.join(', ')}, which the installed ai does not export (loopchart is tested with ai ${TESTED_AI_RANGE}); use streamLanguageModelCallStep.`,
        );
      }
      const model = aiInternals.resolveLanguageModel(request.model);
      this.instructions = request.instructions;
      const promptMessages = await convertPromptIncrementally(request.instructions, messagesOf(request), {
        supportedUrls: await model.supportedUrls,
        download: undefined,
        abortSignal: request.abortSignal,
        provider: model.provider.split('.')[0],
      });
      const tools = await prepareToolsOnce(request.tools);
      const result = await model.doStream({
        tools,
        toolChoice: aiInternals.prepareToolChoice({ toolChoice: request.toolChoice }),
        ...(request.output ? { responseFormat: await request.output.responseFormat } : {}),
        prompt: promptMessages,
        abortSignal: request.abortSignal,
      });
      stream = result.stream;
    } catch (error) {
      return { done: false, value: { type: 'error', error } };
    }
    this.reader = stream.getReader();
    const signal = request.abortSignal;
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort);
    return this.next();
  }

  private readonly onRead = (result: ReadableStreamReadResult<LanguageModelV4StreamPart>): Result | Promise<Result> => {
    if (result.done) return this.end();
    const chunk = result.value;
    switch (chunk.type) {
      case 'text-delta':
      case 'reasoning-delta':
        return { done: false, value: { type: chunk.type, id: chunk.id, text: chunk.delta, providerMetadata: chunk.providerMetadata } };
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
        return { done: false, value: { type: chunk.type, id: chunk.id, providerMetadata: chunk.providerMetadata } };
      case 'tool-call':
        return this.toolCall(chunk);
      case 'stream-start':
        return { done: false, value: { type: 'stream-start', warnings: chunk.warnings } };
      case 'response-metadata':
        return {
          done: false,
          value: {
            type: 'response-metadata',
            ...(chunk.id !== undefined ? { id: chunk.id } : {}),
            ...(chunk.modelId !== undefined ? { modelId: chunk.modelId } : {}),
            ...(chunk.timestamp !== undefined ? { timestamp: chunk.timestamp } : {}),
          },
        };
      case 'tool-input-start':
        return { done: false, value: { type: chunk.providerExecuted ? 'provider-tool-input-start' : 'tool-input-start', id: chunk.id, toolName: chunk.toolName } };
      case 'tool-input-delta':
        return { done: false, value: { type: 'tool-input-delta', id: chunk.id, delta: chunk.delta } };
      case 'finish':
        this.finished = true;
        try {
          return {
            done: false,
            value: {
              type: 'finish',
              finishReason: chunk.finishReason.unified,
              rawFinishReason: chunk.finishReason.raw,
              usage: aiInternals.asLanguageModelUsage(chunk.usage),
            },
          };
        } catch (error) {
          return this.fail(error);
        }
      case 'error':
        return { done: false, value: { type: 'error', error: normalizeStreamProviderError(chunk.error) } };
      case 'tool-result':
        return this.providerResult(chunk);
      case 'source':
      case 'file':
      case 'reasoning-file':
        return { done: false, value: chunk };
      case 'tool-approval-request': {
        // The provider asks to approve a call it runs itself: loopchart cannot answer it, and says so.
        const providerCall = this.providerCalls?.get(chunk.toolCallId);
        if (providerCall) {
          const error = new ProviderApprovalRequestError({ toolCallId: chunk.toolCallId, approvalId: chunk.approvalId, toolName: providerCall.toolName });
          return { done: false, value: { type: 'error', error } };
        }
        if (this.toolCallIds?.has(chunk.toolCallId)) return this.next();
        return {
          done: false,
          value: { type: 'error', error: new ToolCallNotFoundForApprovalError({ toolCallId: chunk.toolCallId, approvalId: chunk.approvalId }) },
        };
      }
      default:
        // tool-input-end, custom and raw parts: nothing a step reports.
        return this.next();
    }
  };

  private readonly onReadError = (error: unknown): never => {
    this.close();
    throw error;
  };

  private readonly onAbort = (): void => {
    const reader = this.reader;
    // After the finish part the call is complete: the llm actor aborts every call it stops, finished or not.
    if (reader === undefined || this.finished) return;
    this.cancelledByAbort = true;
    reader.cancel(this.request.abortSignal.reason).catch(ignore);
  };

  private async toolCall(chunk: LanguageModelV4ToolCall): Promise<Result> {
    let call: Awaited<ReturnType<typeof aiInternals.parseToolCall>>;
    try {
      call = await aiInternals.parseToolCall({
        toolCall: chunk,
        tools: this.request.tools,
        repairToolCall: undefined,
        refineToolInput: undefined,
        instructions: this.instructions,
        // Read only by repairToolCall, which is not given: the history is not made into an array for it.
        messages: [],
        abortSignal: this.request.abortSignal,
      });
    } catch (error) {
      // parseToolCall turns every parse failure into an invalid call; it throws only when aborted.
      return { done: false, value: { type: 'error', error } };
    }
    (this.toolCallIds ??= new Set()).add(call.toolCallId);
    if (call.providerExecuted) {
      (this.providerCalls ??= new Map()).set(call.toolCallId, { input: call.input as unknown, toolName: call.toolName });
      return { done: false, value: providerToolCall(call) };
    }
    return {
      done: false,
      value: {
        type: 'tool-call',
        toolCall: stepToolCall(call),
      },
    };
  }

  /** A tool the provider ran itself answered: its result, as the history keeps it. */
  private async providerResult(chunk: Extract<LanguageModelV4StreamPart, { type: 'tool-result' }>): Promise<Result> {
    try {
      return { done: false, value: await providerToolResult(chunk, this.request.tools, this.providerCalls?.get(chunk.toolCallId)?.input) };
    } catch (error) {
      // A tool's own `toModelOutput` threw: the AI SDK's stream fails there too.
      return this.fail(error);
    }
  }

  /** The provider stream closed: the step is over (with the abort's reason if it was cancelled by an abort). */
  private end(): Result {
    this.close();
    if (this.cancelledByAbort) throw this.request.abortSignal.reason;
    return DONE;
  }

  /** A part could not be mapped (a malformed `finish`): the step fails the way the SDK's transform does. */
  private fail(error: unknown): never {
    const reader = this.reader;
    this.close();
    if (reader !== undefined) reader.cancel(error).catch(ignore);
    throw error;
  }

  private close(): void {
    if (this.reader === undefined) return;
    this.reader = undefined;
    this.started = true;
    this.request.abortSignal.removeEventListener('abort', this.onAbort);
  }
}
