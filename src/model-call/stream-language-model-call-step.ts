import { experimental_streamLanguageModelCall as streamLanguageModelCall } from 'ai';
import type { StepFunction, StepPart } from '../core/step.js';
import { stepToolCall } from './step-tool-call.js';
import { ProviderApprovalRequestError } from '../errors/provider-approval-request-error.js';
import { providerToolCall, providerToolResult } from './provider-tool-result.js';

/**
 * The default step: one call through the AI SDK's
 * `experimental_streamLanguageModelCall` (prompt conversion, tool-call parsing
 * and validation; no loop, no retries, no tool execution).
 */
export const streamLanguageModelCallStep: StepFunction = async function* (request) {
  let result: Awaited<ReturnType<typeof streamLanguageModelCall>>;
  try {
    result = await streamLanguageModelCall({
      model: request.model,
      instructions: request.instructions,
      messages: request.messages,
      tools: request.tools,
      ...(request.output ? { output: request.output } : {}),
      ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
      abortSignal: request.abortSignal,
    });
  } catch (error) {
    yield { type: 'error', error };
    return;
  }
  for await (const part of result.stream) {
    const mapped = toStepPart(part);
    if (mapped) yield mapped;
    // Checked only for parts `toStepPart` drops, so a delta costs nothing more.
    else if ((part.type === 'tool-result' || part.type === 'tool-error') && part.providerExecuted) {
      const isError = part.type === 'tool-error';
      yield await providerToolResult(
        {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          result: isError ? part.error : part.output,
          ...(isError ? { isError } : {}),
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        },
        request.tools,
        part.input,
      );
    }
  }
};

type CallPart = Awaited<ReturnType<typeof streamLanguageModelCall>>['stream'] extends AsyncIterable<infer P> ? P : never;

function toStepPart(part: CallPart): StepPart | undefined {
  switch (part.type) {
    case 'text-start':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-end':
      return { type: part.type, id: part.id, providerMetadata: part.providerMetadata };
    case 'text-delta':
    case 'reasoning-delta':
      return { type: part.type, id: part.id, text: part.text, providerMetadata: part.providerMetadata };
    case 'tool-call':
      if (part.providerExecuted) return providerToolCall(part);
      return {
        type: 'tool-call',
        toolCall: stepToolCall(part),
      };
    case 'model-call-start':
      return { type: 'stream-start', warnings: part.warnings };
    case 'model-call-response-metadata':
      return {
        type: 'response-metadata',
        ...(part.id !== undefined ? { id: part.id } : {}),
        ...(part.modelId !== undefined ? { modelId: part.modelId } : {}),
        ...(part.timestamp !== undefined ? { timestamp: part.timestamp } : {}),
      };
    case 'tool-input-start':
      return { type: part.providerExecuted ? 'provider-tool-input-start' : 'tool-input-start', id: part.id, toolName: part.toolName };
    case 'tool-input-delta':
      return { type: 'tool-input-delta', id: part.id, delta: part.delta };
    case 'model-call-end':
      return { type: 'finish', finishReason: part.finishReason, rawFinishReason: part.rawFinishReason, usage: part.usage };
    case 'source':
      return part;
    case 'tool-approval-request':
      // The provider asks to approve a call it runs itself: loopchart cannot answer it, and says so.
      if (!part.toolCall.providerExecuted) return undefined;
      return { type: 'error', error: new ProviderApprovalRequestError({ toolCallId: part.toolCall.toolCallId, approvalId: part.approvalId, toolName: part.toolCall.toolName }) };
    case 'file':
    case 'reasoning-file':
      // The AI SDK has the file's bytes by now (it downloads one the provider gave by URL).
      return { type: part.type, mediaType: part.file.mediaType, data: { type: 'data', data: part.file.base64 }, ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}) };
    case 'error':
      return { type: 'error', error: part.error };
    default:
      return undefined;
  }
}
