import type {
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolCall,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { isAbortFailure, scriptedErrorFor } from './record-error.js';
import type { ScriptedError, ScriptedToolCall, ScriptTurn } from './script-schema.js';

/**
 * Collects what one model call produced, part by part, and turns it into the
 * {@link ScriptTurn} that makes the scripted model answer the same way.
 * Recording a part only pushes to an array, so a long response costs O(1) per part.
 */
export class TurnRecorder {
  private readonly textDeltas: string[] = [];
  private readonly reasoningDeltas: string[] = [];
  private readonly toolCalls: ScriptedToolCall[] = [];
  private finishReason: LanguageModelV4FinishReason['unified'] | undefined;
  private usage: ScriptTurn['usage'];
  private error: ScriptedError | undefined;
  private endedWithoutFinish = false;
  private streaming = false;

  constructor(private readonly abortSignal: AbortSignal | undefined) {}

  recordStreamStarted(): void {
    this.streaming = true;
  }

  recordStreamPart(part: LanguageModelV4StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        this.textDeltas.push(part.delta);
        break;
      case 'reasoning-delta':
        this.reasoningDeltas.push(part.delta);
        break;
      case 'tool-call':
        this.recordToolCall(part);
        break;
      case 'finish':
        this.recordFinish(part.finishReason, part.usage);
        break;
      case 'error':
        this.recordFailure(part.error);
        break;
    }
  }

  recordStreamClosed(): void {
    if (this.finishReason === undefined && this.error === undefined && !this.abortSignal?.aborted) {
      this.endedWithoutFinish = true;
    }
  }

  /** A rejected call (before its stream), an error part, or a stream that errored. Aborts and later errors add nothing. */
  recordFailure(error: unknown): void {
    if (this.error !== undefined || isAbortFailure(error, this.abortSignal)) return;
    const after = this.streaming ? this.textDeltas.length : undefined;
    this.error = { ...scriptedErrorFor(error), ...(after !== undefined && { after }) };
  }

  recordGeneration({ content, finishReason, usage }: LanguageModelV4GenerateResult): void {
    for (const part of content) {
      if (part.type === 'text') this.textDeltas.push(part.text);
      else if (part.type === 'reasoning') this.reasoningDeltas.push(part.text);
      else if (part.type === 'tool-call') this.recordToolCall(part);
    }
    this.recordFinish(finishReason, usage);
  }

  /** What has been recorded so far. Shares arrays and tool inputs with the recorder: copy it before handing it out. */
  toScriptTurn(): ScriptTurn {
    const turn: ScriptTurn = {};
    if (this.reasoningDeltas.length > 0) turn.reasoning = this.reasoningDeltas;
    if (this.textDeltas.length > 0) turn.text = this.textDeltas;
    if (this.toolCalls.length > 0) turn.toolCalls = this.toolCalls;
    if (this.finishReason !== undefined) turn.finishReason = this.finishReason;
    if (this.usage !== undefined) turn.usage = this.usage;
    if (this.error !== undefined) turn.error = this.error;
    if (this.endedWithoutFinish) turn.endWithoutFinish = true;
    return turn;
  }

  private recordToolCall({ toolCallId, toolName, input, providerExecuted }: LanguageModelV4ToolCall): void {
    // The provider ran it and sends its result itself; the scripted model can only make client-side calls.
    if (providerExecuted) return;
    this.toolCalls.push({ id: toolCallId, name: toolName, input: scriptedToolInput(input) });
  }

  private recordFinish(finishReason: LanguageModelV4FinishReason, usage: LanguageModelV4Usage): void {
    this.finishReason = finishReason.unified;
    const figures = {
      inputTokens: usage.inputTokens.total,
      outputTokens: usage.outputTokens.total,
      noCacheTokens: usage.inputTokens.noCache,
      cacheReadTokens: usage.inputTokens.cacheRead,
      cacheWriteTokens: usage.inputTokens.cacheWrite,
      textTokens: usage.outputTokens.text,
      reasoningTokens: usage.outputTokens.reasoning,
    };
    const reported = Object.entries(figures).filter(([, value]) => value !== undefined);
    if (reported.length > 0) this.usage = Object.fromEntries(reported);
  }
}

/**
 * The provider's input string as a script's tool-call input: the parsed JSON
 * object when the string is one (the scripted model sends it back as
 * `JSON.stringify` of that object), otherwise the string itself, which the
 * scripted model sends verbatim, so malformed input and JSON that is not an
 * object (a bare string, a number) replay byte for byte.
 */
function scriptedToolInput(input: string): unknown {
  try {
    const parsed: unknown = JSON.parse(input);
    return typeof parsed === 'object' && parsed !== null ? parsed : input;
  } catch {
    return input;
  }
}
