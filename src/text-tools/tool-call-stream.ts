import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { asToolCallsFinish } from './tool-calls-finish.js';
import { ToolTagParser, type TextToolCall, type ToolTagEvent } from './tool-tag-parser.js';

type Emit = (part: LanguageModelV4StreamPart) => void;

/** One text part of the model's stream, as it is passed on. */
interface TextPartState {
  parser: ToolTagParser;
  sourceId: string;
  /** The id of the text part currently open downstream, if any. */
  openId: string | undefined;
  /** How many downstream text parts this one has been split into so far (one more after each tool call). */
  segments: number;
  providerMetadata: Extract<LanguageModelV4StreamPart, { type: 'text-start' }>['providerMetadata'];
}

/**
 * A stream transform that turns `<use_tool>` blocks in a model's text parts
 * into native tool-call parts, the way a provider with tool support streams
 * them: `tool-input-start`, `tool-input-delta`, `tool-input-end`, then
 * `tool-call`. Text around the blocks still streams as text (a text part is
 * split at each block); the finish reason becomes `tool-calls` when a block
 * was found and the model otherwise stopped normally.
 *
 * @example
 * const { stream, ...rest } = await doStream();
 * return { stream: stream.pipeThrough(toolCallsFromTextStream({ generateToolCallId: () => crypto.randomUUID() })), ...rest };
 */
export function toolCallsFromTextStream({
  generateToolCallId,
}: {
  generateToolCallId: () => string;
}): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  const textParts = new Map<string, TextPartState>();
  let toolCallCount = 0;

  const textPart = (id: string): TextPartState => {
    let state = textParts.get(id);
    if (!state) {
      state = { parser: new ToolTagParser(), sourceId: id, openId: undefined, segments: 0, providerMetadata: undefined };
      textParts.set(id, state);
    }
    return state;
  };

  const emitEvents = (state: TextPartState, events: ToolTagEvent[], emit: Emit): void => {
    for (const event of events) {
      if (event.type === 'text') {
        if (state.openId === undefined) {
          state.openId = state.segments === 0 ? state.sourceId : `${state.sourceId}-${state.segments}`;
          state.segments += 1;
          emit({ type: 'text-start', id: state.openId, ...(state.providerMetadata ? { providerMetadata: state.providerMetadata } : {}) });
        }
        emit({ type: 'text-delta', id: state.openId, delta: event.text });
      } else {
        closeText(state, emit);
        emitToolCall(event.toolCall, generateToolCallId(), emit);
        toolCallCount += 1;
      }
    }
  };

  const endTextPart = (state: TextPartState, emit: Emit, end?: Extract<LanguageModelV4StreamPart, { type: 'text-end' }>): void => {
    emitEvents(state, state.parser.flush(), emit);
    closeText(state, emit, end);
    textParts.delete(state.sourceId);
  };

  const endAllTextParts = (emit: Emit): void => {
    for (const state of [...textParts.values()]) endTextPart(state, emit);
  };

  return new TransformStream({
    transform(part, controller) {
      const emit: Emit = (next) => controller.enqueue(next);
      switch (part.type) {
        case 'text-start':
          textPart(part.id).providerMetadata = part.providerMetadata;
          return;
        case 'text-delta':
          emitEvents(textPart(part.id), textPart(part.id).parser.feed(part.delta), emit);
          return;
        case 'text-end':
          endTextPart(textPart(part.id), emit, part);
          return;
        case 'finish':
          endAllTextParts(emit);
          emit(toolCallCount > 0 ? { ...part, finishReason: asToolCallsFinish(part.finishReason) } : part);
          return;
        default:
          emit(part);
      }
    },
    flush(controller) {
      endAllTextParts((next) => controller.enqueue(next));
    },
  });
}

function closeText(state: TextPartState, emit: Emit, end?: Extract<LanguageModelV4StreamPart, { type: 'text-end' }>): void {
  if (state.openId === undefined) return;
  emit({ ...end, type: 'text-end', id: state.openId });
  state.openId = undefined;
}

function emitToolCall(toolCall: TextToolCall, toolCallId: string, emit: Emit): void {
  emit({ type: 'tool-input-start', id: toolCallId, toolName: toolCall.toolName });
  emit({ type: 'tool-input-delta', id: toolCallId, delta: toolCall.input });
  emit({ type: 'tool-input-end', id: toolCallId });
  emit({ type: 'tool-call', toolCallId, toolName: toolCall.toolName, input: toolCall.input });
}
