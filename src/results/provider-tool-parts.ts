import type { AgentEvent } from '../core/events.js';

type ProviderToolCall = Extract<AgentEvent, { type: 'provider-tool-call' }>;
type ProviderToolResult = Extract<AgentEvent, { type: 'provider-tool-result' }>;

/**
 * An invalid call's error as the AI SDK reports it: an `Error` with the name and message the
 * event carries (`AI_InvalidToolInputError`, `AI_NoSuchToolError`).
 *
 * @example
 * invalidCallError({ error: { name: 'AI_NoSuchToolError', message: 'Model tried to call unavailable tool "x".' } }).name // 'AI_NoSuchToolError'
 */
export function invalidCallError(event: { error?: { name: string; message: string } }): Error {
  return Object.assign(new Error(event.error?.message ?? 'invalid tool call'), { name: event.error?.name ?? 'Error' });
}

/**
 * A call of a tool the provider ran itself, as the AI SDK's content and stream show it:
 * `providerExecuted`, dynamic when the provider says so, when it is invalid, or when `isDynamicTool`.
 * Pure.
 */
export function providerToolCallPart(event: ProviderToolCall, isDynamicTool: boolean) {
  const error = event.invalid ? invalidCallError(event) : undefined;
  return {
    type: 'tool-call' as const,
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    input: event.input,
    providerExecuted: true,
    ...(event.dynamic || event.invalid || isDynamicTool ? { dynamic: true } : {}),
    ...(error ? { invalid: true, error } : {}),
    ...(event.providerMetadata ? { providerMetadata: event.providerMetadata } : {}),
  };
}

/** The provider's result of its own call, with the call's `input`: a `tool-result`, or a `tool-error` when it failed. Pure. */
export function providerToolResultPart(event: ProviderToolResult, input: unknown) {
  const base = { toolCallId: event.toolCallId, toolName: event.toolName, input, providerExecuted: true, ...(event.providerMetadata ? { providerMetadata: event.providerMetadata } : {}) };
  return event.isError ? { type: 'tool-error' as const, ...base, error: event.output } : { type: 'tool-result' as const, ...base, output: event.output };
}
