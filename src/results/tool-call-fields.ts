import type { ToolSet } from 'ai';

/** A tool's `metadata`: JSON the AI SDK never sends to the model. */
type ToolMetadata = NonNullable<ToolSet[string]['metadata']>;

/** What the AI SDK copies from a tool onto the parts of its calls. */
export interface ToolCallFields {
  /** The tool's `title`, on its calls (`tool-input-start`, `tool-call`, an approval request's call). */
  title?: string;
  /** The tool's `metadata`, on its calls and their results, errors and approval requests. */
  toolMetadata?: ToolMetadata;
}

/**
 * The `title` and `toolMetadata` that `streamText` puts on a call of the tool `toolName` (none
 * for a tool the set does not hold, or one without them), so that `useChat`'s tool parts show
 * them as with `ToolLoopAgent`. Pure.
 *
 * @example
 * ```ts
 * toolCallFields({ pay: tool({ title: 'Payment', metadata: { source: 'bank' }, inputSchema, execute }) }, 'pay');
 * // { title: 'Payment', toolMetadata: { source: 'bank' } }
 * ```
 */
export function toolCallFields(tools: ToolSet, toolName: string): ToolCallFields {
  const tool = Object.hasOwn(tools, toolName) ? tools[toolName] : undefined;
  if (tool === undefined) return {};
  return { ...(tool.title !== undefined ? { title: tool.title } : {}), ...(tool.metadata != null ? { toolMetadata: tool.metadata } : {}) };
}

/**
 * The `toolMetadata` that `streamText` puts on a result (or error) of a call of `toolName`: the
 * tool's `metadata`, without its `title`. Pure.
 *
 * @example
 * ```ts
 * toolResultFields({ pay: tool({ title: 'Payment', metadata: { source: 'bank' }, inputSchema, execute }) }, 'pay');
 * // { toolMetadata: { source: 'bank' } }
 * ```
 */
export function toolResultFields(tools: ToolSet, toolName: string): Pick<ToolCallFields, 'toolMetadata'> {
  const { toolMetadata } = toolCallFields(tools, toolName);
  return toolMetadata !== undefined ? { toolMetadata } : {};
}
