import { executeTool } from '@ai-sdk/provider-utils';
import type { ModelMessage, Tool } from 'ai';
import { createToolModelOutput } from 'ai/internal';
import { fromPromise } from 'xstate';
import { errorMessage } from '../errors/error-message.js';
import { errorAnswer, type ToolAnswer } from '../machines/history.js';
import type { AgentRuntime } from '../runtime.js';
import type { StepToolCall } from './step.js';

export interface ToolActorInput {
  runId: string;
  step: number;
  /** Position of the call in its step; answers enter the history in this order. */
  index: number;
  call: StepToolCall;
  messages: ModelMessage[];
}

export interface ToolActorOutput {
  index: number;
  answer: ToolAnswer;
  /** The tool's full output, or the error message. */
  output: unknown;
  isError: boolean;
  durationMs: number;
}

/**
 * The tool actor: executes one tool call with the actor's abort `signal`.
 * It never rejects: an unknown tool, invalid input or a throw becomes an
 * error result that the model sees on the next step.
 */
export function createToolActor(runtime: Pick<AgentRuntime, 'tools' | 'emit'>) {
  return fromPromise<ToolActorOutput, ToolActorInput>(async ({ input, signal }) => {
    const { call } = input;
    const startedAt = performance.now();
    const fail = (message: string): ToolActorOutput => ({
      index: input.index,
      answer: errorAnswer(call, message),
      output: message,
      isError: true,
      durationMs: performance.now() - startedAt,
    });

    const tool: Tool | undefined = Object.hasOwn(runtime.tools, call.toolName) ? runtime.tools[call.toolName] : undefined;
    if (tool === undefined) {
      const available = Object.keys(runtime.tools).join(', ') || 'none';
      return fail(`Unknown tool "${call.toolName}". Available tools: ${available}.`);
    }
    if (call.invalid) return fail(`Invalid input for tool "${call.toolName}": ${call.error ?? 'validation failed'}`);
    if (tool.execute === undefined) return fail(`Tool "${call.toolName}" has no execute function.`);

    try {
      let output: unknown;
      const parts = executeTool({
        tool: tool as Tool & { execute: NonNullable<Tool['execute']> },
        input: call.input,
        options: { toolCallId: call.toolCallId, messages: input.messages, abortSignal: signal, context: {} as never },
      });
      for await (const part of parts) {
        if (part.type === 'final') {
          output = part.output;
        } else {
          runtime.emit({
            type: 'tool-update',
            runId: input.runId,
            step: input.step,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: part.output,
          });
        }
      }
      const modelOutput = await createToolModelOutput({
        toolCallId: call.toolCallId,
        input: call.input,
        output,
        tool,
        errorMode: 'none',
      });
      return {
        index: input.index,
        answer: { toolCallId: call.toolCallId, toolName: call.toolName, output: modelOutput },
        output,
        isError: false,
        durationMs: performance.now() - startedAt,
      };
    } catch (error) {
      return fail(errorMessage(error));
    }
  });
}
