import type { Attributes } from '@opentelemetry/api';
import type { FinishReason, LanguageModelUsage } from 'ai';

/**
 * The OpenTelemetry GenAI semantic conventions' names and values that loopchart's spans use, and
 * the pure mappings from the AI SDK's vocabulary to them. No I/O, no `@opentelemetry/api` at run time.
 */

/** `gen_ai.operation.name` of each GenAI span loopchart makes. */
export const GEN_AI_OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

// The AI SDK's provider ids (`model.provider`: `openai.chat`, `anthropic.messages`, `google.vertex.chat`, …)
// by their first segment, mapped to the conventions' well-known `gen_ai.provider.name` values.
const WELL_KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  azure: 'azure.ai.openai',
  'azure-openai': 'azure.ai.openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  'google-vertex': 'gcp.vertex_ai',
  vertex: 'gcp.vertex_ai',
  'amazon-bedrock': 'aws.bedrock',
  bedrock: 'aws.bedrock',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  groq: 'groq',
  deepseek: 'deepseek',
  cohere: 'cohere',
  perplexity: 'perplexity',
};

/**
 * `gen_ai.provider.name` for an AI SDK `model.provider`: a well-known value where the conventions
 * have one (`openai.chat` → `openai`, `google.vertex.chat` → `gcp.vertex_ai`), else the provider's
 * first segment (`scripted` → `scripted`).
 */
export function providerName(provider: string): string {
  const [first = provider, second] = provider.split('.');
  if (first === 'google' && second === 'vertex') return 'gcp.vertex_ai';
  return WELL_KNOWN_PROVIDERS[first] ?? first;
}

/**
 * A finish reason as the conventions spell it (`gen_ai.response.finish_reasons`): `tool-calls` →
 * `tool_call`, `content-filter` → `content_filter`; the others (`stop`, `length`, `error`, `other`) as they are.
 */
export function finishReasonValue(reason: FinishReason): string {
  if (reason === 'tool-calls') return 'tool_call';
  return reason.replaceAll('-', '_');
}

/** The `gen_ai.usage.*` attributes of a usage; a detail the provider did not report is left out. */
export function usageAttributes(usage: LanguageModelUsage): Attributes {
  const attributes: Attributes = {
    'gen_ai.usage.input_tokens': usage.inputTokens ?? 0,
    'gen_ai.usage.output_tokens': usage.outputTokens ?? 0,
  };
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens;
  const reasoning = usage.outputTokenDetails?.reasoningTokens;
  if (cacheRead !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = cacheRead;
  if (cacheWrite !== undefined) attributes['gen_ai.usage.cache_creation.input_tokens'] = cacheWrite;
  if (reasoning !== undefined) attributes['gen_ai.usage.reasoning.output_tokens'] = reasoning;
  return attributes;
}

/** A tool's input or output as the conventions record it on a span: JSON text. */
/** The most characters of text a span attribute, status message or exception message holds; the rest is cut. */
export const MAX_ATTRIBUTE_CHARS = 32 * 1024;

/**
 * `text` as a span holds it: at most {@link MAX_ATTRIBUTE_CHARS} characters, the rest cut with a mark
 * that starts with `…`, so that the redaction after it (see `redact`) takes a secret's piece at the cut too.
 *
 * @example
 * cutAttribute('x'.repeat(40_000)) // the first 32 768 x's, then '…[cut: 40000 characters in all]'
 */
export function cutAttribute(text: string): string {
  if (text.length <= MAX_ATTRIBUTE_CHARS) return text;
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(MAX_ATTRIBUTE_CHARS - 1)) ? MAX_ATTRIBUTE_CHARS - 1 : MAX_ATTRIBUTE_CHARS;
  return `${text.slice(0, end)}…[cut: ${text.length} characters in all]`;
}

/** A value as a span attribute: its JSON (its `String` when it has none), cut to {@link MAX_ATTRIBUTE_CHARS}. */
export function jsonAttribute(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return cutAttribute(text);
}

/** The text of a tool's error result (a message, or whatever the tool returned as its error). */
export function errorText(output: unknown): string {
  return typeof output === 'string' ? cutAttribute(output) : jsonAttribute(output);
}
