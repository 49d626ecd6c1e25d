import type { ProviderMetadata, ToolSet } from 'ai';
import type { StepPart, StepToolCall } from '../core/step.js';
import { toolModelOutput } from './ai-internals.js';
import { stepToolCall, type ParsedToolCall } from './step-tool-call.js';

/** The provider's result of a tool it ran itself, as both steps get it. */
export interface ProviderResult {
  toolCallId: string;
  toolName: string;
  result: unknown;
  isError?: boolean;
  providerMetadata?: ProviderMetadata;
}

/** A provider-executed call as a step yields it: not for the machine to run. */
export function providerToolCall(call: ParsedToolCall & { dynamic?: boolean }): Extract<StepPart, { type: 'provider-tool-call' }> {
  const toolCall: StepToolCall = stepToolCall(call);
  return { type: 'provider-tool-call', toolCall, ...(call.dynamic ? { dynamic: true } : {}) };
}

/**
 * The provider's result of its own tool call, with the output the history keeps: what the AI SDK's
 * `toResponseMessages` writes into the assistant message (the tool's `toModelOutput`, else `text`
 * or `json`; an error as `error-json`).
 */
export async function providerToolResult(part: ProviderResult, tools: ToolSet, input: unknown): Promise<Extract<StepPart, { type: 'provider-tool-result' }>> {
  const output = part.isError
    ? { type: 'error-json' as const, value: toJsonValue(part.result) }
    : await toolModelOutput({ toolCallId: part.toolCallId, input, output: part.result, tool: Object.hasOwn(tools, part.toolName) ? tools[part.toolName] : undefined });
  return {
    type: 'provider-tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    result: part.result,
    output,
    ...(part.isError ? { isError: true } : {}),
    ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
  };
}

/** A value as JSON (what the AI SDK's `toJSONValue` makes of it): `undefined` is `null`. */
function toJsonValue(value: unknown): never {
  if (value === undefined) return null as never;
  const text = JSON.stringify(value);
  return (text === undefined ? null : JSON.parse(text)) as never;
}
