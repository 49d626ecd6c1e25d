import type { AssistantModelMessage, FinishReason, ModelMessage } from 'ai';
import { fromCallback } from 'xstate';
import { classifyError } from '../errors/classify-error.js';
import type { AgentContext } from '../machines/context.js';
import { usageFrom, type Usage } from '../machines/usage.js';
import type { RunError } from '../result.js';
import type { AgentRuntime } from '../runtime.js';
import type { StepToolCall } from './step.js';
import { StepAccumulator } from './step-accumulator.js';

export interface LlmActorInput {
  runId: string;
  step: number;
  messages: ModelMessage[];
  instructions: AgentContext['config']['instructions'];
}

/** Sent to the llm actor by the machine. */
export type LlmActorCommand = { type: 'llm.abort' };

export interface StepOutput {
  /** The assistant message for the history; undefined when the step produced nothing. */
  message: AssistantModelMessage | undefined;
  toolCalls: StepToolCall[];
  text: string;
}

/** Sent back to the machine: the first chunk, then exactly one of finish, error or aborted. */
export type LlmActorEvent =
  | { type: 'llm.firstChunk' }
  | (StepOutput & { type: 'llm.finish'; finishReason: FinishReason; rawFinishReason?: string; usage: Usage })
  | { type: 'llm.error'; error: RunError }
  | (StepOutput & { type: 'llm.aborted' });

/**
 * The llm actor: one model call per invocation through the runtime's step
 * function. Deltas go straight to the runtime's event sink; the machine only
 * hears about the first chunk and the end. On `llm.abort` it answers at once
 * with what has arrived so far (so nothing already reported is lost) and
 * aborts the call.
 */
export function createLlmActor(runtime: Pick<AgentRuntime, 'model' | 'tools' | 'step' | 'emit'>) {
  return fromCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const accumulator = new StepAccumulator();
    let settled = false;
    const settle = (event: LlmActorEvent) => {
      if (settled) return;
      settled = true;
      sendBack(event);
    };
    const output = (): StepOutput => ({
      message: accumulator.toMessage(),
      toolCalls: accumulator.toolCalls,
      text: accumulator.text(),
    });

    receive((command) => {
      if (command.type !== 'llm.abort') return;
      settle({ type: 'llm.aborted', ...output() });
      controller.abort();
    });

    const consume = async () => {
      let started = false;
      const parts = runtime.step({
        model: runtime.model,
        instructions: input.instructions,
        messages: input.messages,
        tools: runtime.tools,
        abortSignal: controller.signal,
      });
      for await (const part of parts) {
        if (settled) return;
        if (!started && part.type !== 'error' && part.type !== 'finish') {
          started = true;
          sendBack({ type: 'llm.firstChunk' });
        }
        switch (part.type) {
          case 'text-delta':
          case 'reasoning-delta':
            accumulator.add(part);
            runtime.emit({ type: part.type, runId: input.runId, step: input.step, id: part.id, text: part.text });
            break;
          case 'finish':
            settle({
              type: 'llm.finish',
              ...output(),
              finishReason: part.finishReason,
              ...(part.rawFinishReason !== undefined ? { rawFinishReason: part.rawFinishReason } : {}),
              usage: usageFrom(part.usage),
            });
            return;
          case 'error':
            settle({ type: 'llm.error', error: classifyError(part.error) });
            return;
          default:
            accumulator.add(part);
        }
      }
      settle({ type: 'llm.error', error: { kind: 'stream', message: 'The model stream ended without a finish part.' } });
    };

    consume().catch((error: unknown) => settle({ type: 'llm.error', error: classifyError(error) }));

    return () => {
      settled = true;
      controller.abort();
    };
  });
}
