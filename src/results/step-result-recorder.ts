import type { CallWarning, ContentPart, LanguageModelUsage, ModelMessage, StepResult, ToolSet } from 'ai';
import { invalidCallError, providerToolCallPart, providerToolResultPart } from './provider-tool-parts.js';
import type { AgentEvent } from '../core/events.js';
import { addUsage, emptyUsage } from '../core/usage.js';
import { approvalIdOf } from './approval-id.js';
import { generatedFilePart } from './generated-file-part.js';
import { streamBlockId } from './stream-block-id.js';
import { toolCallFields, toolResultFields } from './tool-call-fields.js';

type Content = ContentPart<ToolSet>;
type ResponseMessage = Extract<ModelMessage, { role: 'assistant' | 'tool' }>;
/** A part of a `StepResult`'s `reasoning`: the history's shape of a reasoning text or file. */
type ReasoningPart = AgentStepResult['reasoning'][number];

/** An AI SDK `StepResult` as loopchart reports it; `toolsContext` and `runtimeContext` are empty (loopchart has neither). */
export type AgentStepResult = StepResult<ToolSet>;

const NO_PERFORMANCE: AgentStepResult['performance'] = {
  effectiveOutputTokensPerSecond: 0,
  outputTokensPerSecond: undefined,
  inputTokensPerSecond: undefined,
  effectiveTotalTokensPerSecond: 0,
  stepTimeMs: 0,
  responseTimeMs: 0,
  toolExecutionMs: {},
  timeToFirstOutputMs: undefined,
};

interface OpenStep {
  step: number;
  content: Content[];
  /** Text and reasoning blocks by `<kind>:<attempt>:<id>`, to append deltas to. */
  blocks: Map<string, TextContent>;
  /** The block the last delta went to: the next delta mostly goes there too. */
  lastDelta?: { type: TextContent['type']; attempt: number; id: string; block: TextContent };
  inputs: Map<string, unknown>;
  messages: ResponseMessage[];
  warnings: CallWarning[];
}

/** A text or reasoning block of a step's content, as its deltas build it. */
type TextContent = { type: 'text' | 'reasoning'; text: string };

/** Each text and reasoning block's id in the call's stream (`streamBlockId`), by the content part it became. */
const blockIds = new WeakMap<object, string>();

/**
 * The id of the `text-*` / `reasoning-*` parts of `stream()` that a step's text or reasoning
 * content part was built from; undefined for any other part.
 */
export function streamBlockIdOf(part: object): string | undefined {
  return blockIds.get(part);
}

const isDynamic = (tools: ToolSet, name: string) => !Object.hasOwn(tools, name) || tools[name]?.type === 'dynamic';

/**
 * Builds the AI SDK's `StepResult`s of a run (or of the part of it one call saw) from its agent
 * events, as `generateText` builds them from its stream: each step's content in the order it
 * streamed (text, reasoning, tool calls, approval requests, tool results, errors and denials,
 * the provider's own tool calls and results, sources and generated files), its
 * finish reason, usage, warnings, model and response, and the response messages it added to the
 * history. A failed attempt's content is dropped when the step is tried again. Constant work per
 * delta; one object per step.
 *
 * @example
 * ```ts
 * const recorder = new StepResultRecorder(agent.tools);
 * agent.events$.subscribe((event) => recorder.event(event));
 * await agent.run('What is 2 + 3?');
 * recorder.steps.at(-1)?.text; // 'It is 5.'
 * ```
 */
export class StepResultRecorder {
  readonly steps: AgentStepResult[] = [];
  /** Response messages that came before the first step recorded (results of calls a person approved before this call). */
  readonly initialResponseMessages: ResponseMessage[] = [];
  private open: OpenStep | undefined;
  private finished: OpenStep | undefined;

  constructor(private readonly tools: ToolSet) {}

  /** The steps' response messages, in order: what the run added to the history after its prompt. */
  get responseMessages(): ResponseMessage[] {
    return [...this.initialResponseMessages, ...this.steps.flatMap((step) => step.response.messages as ResponseMessage[])];
  }

  /** The usage of every step recorded, summed. */
  get totalUsage(): LanguageModelUsage {
    return this.steps.reduce((total, step) => addUsage(total, step.usage), emptyUsage);
  }

  /** The content of the step under way (or of the last one when none is), as it is so far. */
  openContent(): readonly Content[] {
    return this.open?.content ?? this.steps.at(-1)?.content ?? [];
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case 'start-step':
        this.open = { step: event.step, content: [], blocks: new Map(), inputs: new Map(), messages: [], warnings: [] };
        return;
      case 'message':
        if (event.message.role !== 'assistant' && event.message.role !== 'tool') return;
        if (this.open) this.open.messages.push(event.message);
        else if (this.finished === undefined) this.initialResponseMessages.push(event.message);
        else (this.steps.at(-1)!.response.messages as ResponseMessage[]).push(event.message);
        return;
      default:
        break;
    }
    const step = this.open;
    if (!step || !('step' in event) || event.step !== step.step) return;
    switch (event.type) {
      case 'model-call-start':
        if (event.attempt > 1) this.restart(step);
        step.warnings = event.warnings;
        break;
      case 'retry':
        this.restart(step);
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning';
        const last = step.lastDelta;
        let block: TextContent;
        if (last !== undefined && last.type === kind && last.attempt === event.attempt && last.id === event.id) block = last.block;
        else {
          const key = `${kind}:${event.attempt}:${event.id}`;
          let found = step.blocks.get(key);
          if (!found) {
            found = { type: kind, text: '' };
            step.blocks.set(key, found);
            step.content.push(found);
            blockIds.set(found, streamBlockId(event.step, event.attempt, kind, event.id));
          }
          block = found;
          step.lastDelta = { type: kind, attempt: event.attempt, id: event.id, block };
        }
        block.text += event.text;
        break;
      }
      case 'tool-input-available':
      case 'tool-call':
        if (step.inputs.has(event.toolCallId)) break;
        step.inputs.set(event.toolCallId, event.input);
        step.content.push(this.toolCallPart(event));
        break;
      case 'provider-tool-call':
        if (step.inputs.has(event.toolCallId)) break;
        step.inputs.set(event.toolCallId, event.input);
        step.content.push(this.providerCallPart(event));
        break;
      case 'provider-tool-result':
        step.content.push(this.providerResultPart(step, event));
        break;
      case 'source':
        step.content.push(event.source);
        break;
      case 'file': {
        const part = generatedFilePart(event.file);
        if (part) step.content.push(part);
        break;
      }
      case 'approval-request': {
        const approvalId = approvalIdOf(event.toolCallId);
        step.content.push({ type: 'tool-approval-request', approvalId, toolCall: this.staticCall(event) });
        // The request is part of the response, as with the AI SDK: the next call's answers refer to it.
        const index = step.messages.findLastIndex((message) => message.role === 'assistant');
        const assistant = step.messages[index];
        if (assistant && assistant.role === 'assistant' && Array.isArray(assistant.content)) {
          step.messages[index] = { ...assistant, content: [...assistant.content, { type: 'tool-approval-request', approvalId, toolCallId: event.toolCallId }] };
        }
        break;
      }
      case 'tool-result':
        step.content.push(...this.resultParts(step, event));
        break;
      case 'finish-step':
        // A call that never finished (failed, aborted) is no step of the AI SDK's.
        if (event.finishReason === undefined) this.open = undefined;
        else this.finish(step, event);
        break;
      default:
        break;
    }
  }

  private restart(step: OpenStep): void {
    step.content = [];
    step.blocks.clear();
    step.lastDelta = undefined;
    step.inputs.clear();
  }

  private staticCall(event: { toolCallId: string; toolName: string; input: unknown }) {
    return {
      type: 'tool-call' as const,
      toolCallId: event.toolCallId,
      toolName: event.toolName,
      input: event.input,
      ...(isDynamic(this.tools, event.toolName) ? { dynamic: true } : {}),
      ...toolCallFields(this.tools, event.toolName),
    };
  }

  private toolCallPart(event: Extract<AgentEvent, { type: 'tool-call' | 'tool-input-available' }>): Content {
    if (!event.invalid) return this.staticCall(event);
    const error = invalidCallError(event);
    return { type: 'tool-call', toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, dynamic: true, invalid: true, error, ...toolCallFields(this.tools, event.toolName) };
  }

  /** A provider-executed call as the AI SDK's content has it (`providerExecuted`; an unknown or invalid call is dynamic). */
  private providerCallPart(event: Extract<AgentEvent, { type: 'provider-tool-call' }>): Content {
    return { ...providerToolCallPart(event, isDynamic(this.tools, event.toolName)), ...toolCallFields(this.tools, event.toolName) } as Content;
  }

  /** The provider's result of its own call: a `tool-result` (or `tool-error`) with `providerExecuted`, as the AI SDK's content has it. */
  private providerResultPart(step: OpenStep, event: Extract<AgentEvent, { type: 'provider-tool-result' }>): Content {
    return { ...providerToolResultPart(event, step.inputs.get(event.toolCallId)), ...toolResultFields(this.tools, event.toolName) };
  }

  private resultParts(step: OpenStep, event: Extract<AgentEvent, { type: 'tool-result' }>): Content[] {
    const base = { toolCallId: event.toolCallId, toolName: event.toolName, input: step.inputs.get(event.toolCallId) };
    const dynamic = isDynamic(this.tools, event.toolName);
    const metadata = toolResultFields(this.tools, event.toolName);
    if (event.isError && event.denied) {
      const approvalId = approvalIdOf(event.toolCallId);
      const response = { type: 'tool-approval-response', approvalId, approved: false, ...(event.denied.reason ? { reason: event.denied.reason } : {}) } as unknown as Content;
      if (!event.denied.automatic) return [response];
      return [{ type: 'tool-approval-request', approvalId, toolCall: this.staticCall({ ...base, input: base.input }), isAutomatic: true } as unknown as Content, response];
    }
    if (event.isError) {
      // An invalid call's error is the call's own (the AI SDK reports it as the call's `tool-error`, by name and message).
      const invalid = step.content.find((part) => part.type === 'tool-call' && part.toolCallId === event.toolCallId && 'invalid' in part && part.invalid);
      const error = invalid && 'error' in invalid ? `${(invalid.error as Error).name}: ${(invalid.error as Error).message}` : asError(event.output);
      // generateText's error of an invalid call carries none of the tool's fields; an executed call's carries its metadata.
      return [{ type: 'tool-error', ...base, error, dynamic: invalid ? true : dynamic, ...(invalid ? {} : metadata) }];
    }
    return [{ type: 'tool-result', ...base, output: event.output, dynamic, ...metadata }];
  }

  private finish(step: OpenStep, event: Extract<AgentEvent, { type: 'finish-step' }>): void {
    const { content } = step;
    const { text, reasoning, reasoningText, files, sources, toolCalls, staticToolCalls, dynamicToolCalls, toolResults, staticToolResults, dynamicToolResults } = contentViews(content);
    const response = event.response;
    const result = {
      callId: event.runId,
      stepNumber: this.steps.length,
      model: event.model ?? { provider: 'unknown', modelId: response?.modelId ?? 'unknown' },
      toolsContext: {},
      runtimeContext: undefined,
      content,
      text,
      reasoning,
      reasoningText,
      files,
      sources,
      toolCalls,
      staticToolCalls,
      dynamicToolCalls,
      toolResults,
      staticToolResults,
      dynamicToolResults,
      finishReason: event.finishReason ?? 'other',
      rawFinishReason: event.rawFinishReason,
      usage: event.usage,
      performance: NO_PERFORMANCE,
      warnings: event.warnings ?? step.warnings,
      request: {},
      response: {
        id: response?.id ?? `${event.runId}-${event.step}`,
        modelId: response?.modelId ?? event.model?.modelId ?? 'unknown',
        timestamp: response ? new Date(response.timestamp) : new Date(),
        messages: step.messages,
      },
      providerMetadata: undefined,
    };
    this.steps.push(result as unknown as AgentStepResult);
    this.finished = step;
    this.open = undefined;
  }
}

/** A step's views of its content, each in content order: its text, reasoning, files, sources, tool calls and results. */
export function contentViews(content: readonly Content[]) {
  // The content's views in one pass, each in content order (a filter per view cost an array and a closure each, per step).
  const toolCalls: Extract<Content, { type: 'tool-call' }>[] = [];
  const staticToolCalls: Extract<Content, { type: 'tool-call' }>[] = [];
  const dynamicToolCalls: Extract<Content, { type: 'tool-call' }>[] = [];
  const toolResults: Extract<Content, { type: 'tool-result' }>[] = [];
  const staticToolResults: Extract<Content, { type: 'tool-result' }>[] = [];
  const dynamicToolResults: Extract<Content, { type: 'tool-result' }>[] = [];
  // A file of the model's reasoning is part of its reasoning, in the history's shape as in the AI SDK's StepResult (`providerOptions`, a file's bytes as base64 `data`); only text makes the reasoning text.
  const reasoning: ReasoningPart[] = [];
  const files: Extract<Content, { type: 'file' }>['file'][] = [];
  const sources: Extract<Content, { type: 'source' }>[] = [];
  let text = '';
  let reasoningText: string | undefined;
  for (const part of content) {
    switch (part.type) {
      case 'tool-call':
        toolCalls.push(part);
        if ('dynamic' in part && part.dynamic) dynamicToolCalls.push(part);
        else staticToolCalls.push(part);
        break;
      case 'tool-result':
        toolResults.push(part);
        if (part.dynamic) dynamicToolResults.push(part);
        else staticToolResults.push(part);
        break;
      case 'text':
        text += part.text;
        break;
      case 'reasoning':
        reasoning.push({ type: 'reasoning', text: part.text, ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}) });
        reasoningText = (reasoningText ?? '') + part.text;
        break;
      case 'reasoning-file':
        reasoning.push({ type: 'reasoning-file', data: part.file.base64, mediaType: part.file.mediaType, ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}) });
        break;
      case 'file':
        files.push(part.file);
        break;
      case 'source':
        sources.push(part);
        break;
      default:
        break;
    }
  }
  return { text, reasoning, reasoningText, files, sources, toolCalls, staticToolCalls, dynamicToolCalls, toolResults, staticToolResults, dynamicToolResults };
}

/** A tool's failure as the AI SDK reports it: the error thrown (loopchart keeps its message). */
function asError(output: unknown): unknown {
  return typeof output === 'string' ? new Error(output) : output;
}
