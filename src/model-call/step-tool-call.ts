import type { ProviderMetadata } from 'ai';
import { errorMessage } from '../core/error-message.js';
import type { StepToolCall } from '../core/step.js';

/** What both steps get from the AI SDK's tool-call parsing: a parsed call, valid or not. */
export interface ParsedToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
  providerMetadata?: ProviderMetadata;
}

/**
 * A parsed tool call as loopchart keeps it: an invalid call carries why (as text, so it can be
 * persisted and shown to the model); the provider's metadata is kept only when there is some.
 */
export function stepToolCall(call: ParsedToolCall): StepToolCall {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    ...(call.invalid ? { invalid: true, error: errorMessage(call.error), ...(call.error instanceof Error ? { errorName: call.error.name } : {}) } : {}),
    ...(call.providerMetadata ? { providerMetadata: call.providerMetadata } : {}),
  };
}
