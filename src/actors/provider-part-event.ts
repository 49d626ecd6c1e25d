import type { AgentEvent } from '../core/events.js';
import type { StepPart } from '../core/step.js';
import { withBase64Data } from '../model-call/base64-file.js';

type ProviderPart = Extract<StepPart, { type: 'provider-tool-input-start' | 'provider-tool-call' | 'provider-tool-result' | 'source' | 'file' | 'reasoning-file' }>;

/** The event of a provider-executed tool call, its result, a cited source or a generated file, as the step streams it. */
export function providerPartEvent(part: ProviderPart, scope: { runId: string; step: number }, attempt: number): AgentEvent {
  switch (part.type) {
    case 'provider-tool-input-start':
      return { type: 'tool-input-start', ...scope, attempt, toolCallId: part.id, toolName: part.toolName, providerExecuted: true };
    case 'provider-tool-call': {
      const { toolCall } = part;
      return {
        type: 'provider-tool-call',
        ...scope,
        attempt,
        toolCallId: toolCall.toolCallId,
        toolName: toolCall.toolName,
        input: toolCall.input,
        ...(part.dynamic ? { dynamic: true } : {}),
        ...(toolCall.invalid ? { invalid: true, error: { name: toolCall.errorName ?? 'Error', message: toolCall.error ?? 'invalid tool call' } } : {}),
        ...(toolCall.providerMetadata ? { providerMetadata: toolCall.providerMetadata } : {}),
      };
    }
    case 'provider-tool-result':
      return {
        type: 'provider-tool-result',
        ...scope,
        attempt,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: part.result,
        isError: part.isError === true,
        ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
      };
    case 'source':
      return { type: 'source', ...scope, attempt, source: part };
    case 'file':
    case 'reasoning-file':
      // Bytes as base64, so that the event is JSON as it goes to a journal, Redis or a browser.
      return { type: 'file', ...scope, attempt, file: withBase64Data(part) };
  }
}
