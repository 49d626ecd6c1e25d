import type { ModelMessage, Tool, ToolSet } from 'ai';
import { errorMessage } from '../core/error-message.js';

/** Which tools of a set have `onInputStart`, `onInputDelta` or `onInputAvailable`; computed once per `ToolSet` object. */
const withCallbacks = new WeakMap<ToolSet, boolean>();

/** True when a tool of `tools` has an input callback: without one the llm actor does no per-part work for them. */
export function hasInputCallbacks(tools: ToolSet): boolean {
  let known = withCallbacks.get(tools);
  if (known === undefined) {
    known = Object.values(tools).some((tool) => tool.onInputStart !== undefined || tool.onInputDelta !== undefined || tool.onInputAvailable !== undefined);
    withCallbacks.set(tools, known);
  }
  return known;
}

/** Thrown (or rejected) by a tool's input callback: the model call fails with it, as `streamText`'s does. */
export class ToolInputCallbackError extends Error {
  override readonly name = 'ToolInputCallbackError';
  constructor(
    readonly toolName: string,
    readonly callback: 'onInputStart' | 'onInputDelta' | 'onInputAvailable',
    override readonly cause: unknown,
  ) {
    super(`The ${callback} callback of tool "${toolName}" failed, so the model call failed: ${errorMessage(cause)}`);
  }
}

/**
 * A tool's input callbacks for one model call, called as `streamText` (and so `ToolLoopAgent`)
 * calls them from the stream: `onInputStart` at `tool-input-start`, `onInputDelta` at each
 * `tool-input-delta` (with `inputTextDelta`), `onInputAvailable` at a valid `tool-call` (with the
 * parsed `input`), each with `toolCallId`, the `messages` sent to the model, the call's
 * `abortSignal` and `context`. Each is awaited before the stream goes on. Made only when a tool of
 * the call has one of them (see {@link hasInputCallbacks}).
 */
export class ToolInputCallbacks {
  /** The tool of each call whose input is streaming, by tool-call id. */
  private readonly streaming = new Map<string, { name: string; tool: Tool }>();

  constructor(
    private readonly tools: ToolSet,
    private readonly messages: ModelMessage[],
    private readonly abortSignal: AbortSignal,
  ) {}

  private toolNamed(name: string): Tool | undefined {
    return Object.hasOwn(this.tools, name) ? this.tools[name] : undefined;
  }

  async start(toolCallId: string, toolName: string): Promise<void> {
    const tool = this.toolNamed(toolName);
    if (tool === undefined) return;
    this.streaming.set(toolCallId, { name: toolName, tool });
    if (tool.onInputStart) await this.call(toolName, 'onInputStart', () => tool.onInputStart!({ toolCallId, ...this.options() }));
  }

  async delta(toolCallId: string, inputTextDelta: string): Promise<void> {
    const streaming = this.streaming.get(toolCallId);
    const callback = streaming?.tool.onInputDelta;
    if (callback) await this.call(streaming.name, 'onInputDelta', () => callback({ inputTextDelta, toolCallId, ...this.options() }));
  }

  async available(toolCallId: string, toolName: string, input: unknown, invalid: boolean): Promise<void> {
    this.streaming.delete(toolCallId);
    const tool = invalid ? undefined : this.toolNamed(toolName);
    if (tool?.onInputAvailable) await this.call(toolName, 'onInputAvailable', () => tool.onInputAvailable!({ input, toolCallId, ...this.options() }));
  }

  private options() {
    // `context` as loopchart's tool execution gets it: loopchart has no tools context.
    return { messages: this.messages, abortSignal: this.abortSignal, context: {} as never };
  }

  private async call(toolName: string, callback: ToolInputCallbackError['callback'], run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (error) {
      throw new ToolInputCallbackError(toolName, callback, error);
    }
  }
}
