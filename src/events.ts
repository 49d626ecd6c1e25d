import type { FinishReason, ModelMessage } from 'ai';
import type { RunResult } from './result.js';
import type { Usage } from './machines/usage.js';

export interface RunScoped {
  /** The run this event belongs to. */
  runId: string;
}

export interface StepScoped extends RunScoped {
  /** The LLM call (1-based, counted per run) this event belongs to. */
  step: number;
}

/**
 * Everything an agent reports, in order, on `agent.events$`. A discriminated
 * union on `type`, kebab-case like the AI SDK's stream parts.
 */
export type AgentEvent =
  | (RunScoped & { type: 'run-start'; prompt: ModelMessage[] })
  | (RunScoped & { type: 'run-end'; result: RunResult })
  | (StepScoped & { type: 'step-start' })
  | (StepScoped & {
      type: 'step-end';
      finishReason?: FinishReason;
      usage: Usage;
      text: string;
      toolCalls: number;
    })
  | (StepScoped & { type: 'text-delta'; id: string; text: string })
  | (StepScoped & { type: 'reasoning-delta'; id: string; text: string })
  | (StepScoped & { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; invalid?: boolean })
  | (StepScoped & { type: 'tool-update'; toolCallId: string; toolName: string; output: unknown })
  | (StepScoped & {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      /** The tool's full output (or the error message), before anything is cut for the model. */
      output: unknown;
      isError: boolean;
      durationMs: number;
    })
  | (RunScoped & { type: 'message'; message: ModelMessage });

export type AgentEventType = AgentEvent['type'];
