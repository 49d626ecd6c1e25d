import type { LanguageModelV4Source } from '@ai-sdk/provider';
import type { GeneratedStepFile } from './step.js';
import type { CallWarning, FinishReason, InferToolInput, InferToolOutput, Instructions, ModelMessage, ProviderMetadata, ToolChoice, ToolSet } from 'ai';
import type { CompactionReason } from './compaction-config.js';
import type { HookName } from './callbacks.js';
import type { RunError, RunResult } from './result.js';
import type { RunTrace } from './run-trace.js';
import type { LanguageModelUsage } from 'ai';
import type { UsageCost } from './cost.js';

export interface RunScoped {
  /** The run this event belongs to. */
  runId: string;
}

export interface StepScoped extends RunScoped {
  /** The LLM call (1-based, counted per run) this event belongs to. */
  step: number;
}

export interface DeltaFields {
  /** The text or reasoning block the delta belongs to. */
  id: string;
  text: string;
  /** Which attempt of the step (1-based) streamed it; a failed attempt's text never enters the history. */
  attempt: number;
}

/** True for the untyped `ToolSet` (any tool name): events then carry `unknown` inputs and outputs. */
type IsUntyped<TOOLS extends ToolSet> = string extends keyof TOOLS ? true : false;

/** What the provider said of one LLM call's response (`finish-step`): its id, the model that answered, when. */
export interface StepResponse {
  id: string;
  modelId: string;
  /** ISO 8601. */
  timestamp: string;
}

/**
 * A tool call the model made. With typed tools (`createAgent({ tools: { weather: tool(…) } })`)
 * a valid call narrows on `toolName` to its tool's input type; a call to an unknown tool, or with
 * input that failed the tool's schema, has `invalid: true` and whatever could be parsed.
 */
export type ToolCallEvent<TOOLS extends ToolSet = ToolSet> =
  | (IsUntyped<TOOLS> extends true
      ? StepScoped & { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; invalid?: false }
      : {
          [NAME in keyof TOOLS & string]: StepScoped & {
            type: 'tool-call';
            toolCallId: string;
            toolName: NAME;
            input: InferToolInput<TOOLS[NAME]>;
            invalid?: false;
          };
        }[keyof TOOLS & string])
  | (StepScoped & {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: unknown;
      invalid: true;
      /** Why the call is invalid, as the AI SDK says it (`NoSuchToolError`, `InvalidToolInputError`). */
      error?: { name: string; message: string };
    });

/**
 * A tool call's result: the tool's full output, before anything is cut for the model. With typed
 * tools a result with `isError: false` narrows on `toolName` to its tool's output type; an error
 * result carries the error (a message, or what the tool returned as an error).
 */
export type ToolResultEvent<TOOLS extends ToolSet = ToolSet> =
  | (IsUntyped<TOOLS> extends true
      ? StepScoped & { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown; isError: false; durationMs: number }
      : {
          [NAME in keyof TOOLS & string]: StepScoped & {
            type: 'tool-result';
            toolCallId: string;
            toolName: NAME;
            output: InferToolOutput<TOOLS[NAME]>;
            isError: false;
            durationMs: number;
          };
        }[keyof TOOLS & string])
  | (StepScoped & {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      output: unknown;
      isError: true;
      durationMs: number;
      /** Set when the call did not run because it was denied: by a person, or by a policy (`automatic`). */
      denied?: ToolDenial;
    });

/** Why a call was denied (`tool-result` with `denied`). */
export interface ToolDenial {
  /** Denied by a policy (`approval` rules, `toolApproval`) without asking anyone. */
  automatic: boolean;
  reason?: string;
}

/**
 * Everything an agent reports, in order, on `agent.events$`. A discriminated
 * union on `type`, kebab-case like the AI SDK's stream parts; tool calls and
 * results carry the types of the agent's `TOOLS`.
 */
export type AgentEvent<TOOLS extends ToolSet = ToolSet> =
  | (RunScoped & { type: 'run-start'; prompt: ModelMessage[] })
  | (RunScoped & { type: 'run-end'; result: RunResult })
  | (StepScoped & { type: 'start-step' })
  /**
   * The provider's stream of an LLM call began; `warnings` are the call's (a setting the provider
   * does not support, a response format it cannot honour), as the AI SDK's `CallWarning`s.
   */
  | (StepScoped & {
      type: 'model-call-start';
      attempt: number;
      warnings: CallWarning[];
      model?: { provider: string; modelId: string };
      /** The step's `activeTools` and `toolChoice`, when `prepareStep` gave them. */
      activeTools?: string[];
      toolChoice?: ToolChoice<ToolSet>;
      /** The call's instructions, when `prepareStep` or a `beforeLLMCall` hook replaced the agent's for it. */
      instructions?: Instructions;
    })
  /**
   * The model began writing a tool call's input (as the AI SDK's `tool-input-start`), and wrote a
   * piece of it. `providerExecuted` for a tool the provider runs (see `provider-tool-call`).
   */
  | (StepScoped & { type: 'tool-input-start'; attempt: number; toolCallId: string; toolName: string; providerExecuted?: true })
  | (StepScoped & { type: 'tool-input-delta'; attempt: number; toolCallId: string; delta: string })
  /**
   * The model finished a tool call and it was parsed, while the step still streams: what a UI
   * shows at once. The `tool-call` event follows once the step has finished (its call enters the history).
   */
  | (StepScoped & {
      type: 'tool-input-available';
      attempt: number;
      toolCallId: string;
      toolName: string;
      input: unknown;
      invalid?: boolean;
      error?: { name: string; message: string };
    })
  /**
   * The model called a tool its provider runs itself (`providerExecuted`: a web search, code
   * execution), reported as the step streams. The agent runs nothing and waits for nothing: the
   * provider's `provider-tool-result` answers the call, and both enter the history inside the
   * step's assistant message. `dynamic` for a tool the tool set does not hold; `invalid` as for
   * `tool-input-available`.
   */
  | (StepScoped & {
      type: 'provider-tool-call';
      attempt: number;
      toolCallId: string;
      toolName: string;
      input: unknown;
      dynamic?: true;
      invalid?: true;
      error?: { name: string; message: string };
      providerMetadata?: ProviderMetadata;
    })
  /** The provider's result of its own tool call (`output` as the provider gave it; an error when `isError`). */
  | (StepScoped & {
      type: 'provider-tool-result';
      attempt: number;
      toolCallId: string;
      toolName: string;
      output: unknown;
      isError: boolean;
      providerMetadata?: ProviderMetadata;
    })
  /** A source the model cited (a web page, a document), as the AI SDK's `source` part has it. */
  | (StepScoped & { type: 'source'; attempt: number; source: LanguageModelV4Source })
  /** A file the model generated (`file.type` `file`), or one of its reasoning (`reasoning-file`), as the provider gave it; bytes as base64. */
  | (StepScoped & { type: 'file'; attempt: number; file: GeneratedStepFile })
  | (StepScoped & {
      type: 'finish-step';
      finishReason?: FinishReason;
      /** The provider's own finish reason. */
      rawFinishReason?: string;
      /** The model that made the call, as the AI SDK names it. */
      model?: { provider: string; modelId: string };
      /** What the provider said of its response (the model id it answered with, which may name a version). */
      response?: StepResponse;
      /** The call's warnings: its `model-call-start`'s, and one its finish gives (a priced call whose usage was not reported). */
      warnings?: CallWarning[];
      usage: LanguageModelUsage;
      /** What the step's LLM call cost with the model that made it, when its price is known. */
      cost?: UsageCost;
      text: string;
      toolCalls: number;
    })
  | (StepScoped & DeltaFields & { type: 'text-delta' })
  | (StepScoped & DeltaFields & { type: 'reasoning-delta' })
  | (StepScoped & {
      type: 'retry';
      /** The attempt about to be made (2 for the first retry). */
      attempt: number;
      delayMs: number;
      error: RunError;
    })
  /**
   * The provider's stream reported an error part (a malformed chunk, say) and then went on to a
   * real finish, so the step stands; reported once the step has finished. A stream whose error is
   * not followed by a finish fails the attempt instead (see `retry`).
   */
  | (StepScoped & { type: 'stream-warning'; attempt: number; error: RunError })
  | (StepScoped & {
      type: 'hook-error';
      hook: HookName;
      /** Position of the hook in its array. */
      index: number;
      message: string;
      timedOut: boolean;
    })
  | ToolCallEvent<TOOLS>
  /** A tool's `execute` is about to run (after approval and the `beforeToolCall` hooks), with the input it gets. */
  | (StepScoped & { type: 'tool-execution-start'; toolCallId: string; toolName: string; input: unknown })
  | (StepScoped & { type: 'tool-update'; toolCallId: string; toolName: string; output: unknown })
  | ToolResultEvent<TOOLS>
  | (StepScoped & {
      type: 'approval-request';
      toolCallId: string;
      toolName: string;
      input: unknown;
      /** `policy`: the approval policy said ask; `doom-loop`: the call repeated into a doom loop. */
      reason: 'policy' | 'doom-loop';
    })
  | (StepScoped & { type: 'compaction-start'; reason: CompactionReason; tokensBefore: number })
  | (StepScoped & {
      type: 'compaction-end';
      reason: CompactionReason;
      /** `pruned`: old tool outputs hidden from the model; `summarised`: older messages replaced by a summary. */
      kind: 'pruned' | 'summarised';
      tokensBefore: number;
      tokensAfter: number;
    })
  | (RunScoped & { type: 'message'; message: ModelMessage })
  | { type: 'session-warning'; sessionId: string; message: string }
  /**
   * An event of a sub-agent (see `agentTool`), reported on the calling agent's stream. `path` is the
   * chain of tool calls that lead to it: `[toolCallId]` for a child, `[toolCallId, childToolCallId]`
   * for a grandchild.
   */
  | (StepScoped & { type: 'subagent'; path: string[]; toolName: string; event: AgentEvent })
  /** The run's trace, right before its `run-end`. */
  | (RunScoped & { type: 'trace'; trace: RunTrace });

export type AgentEventType = AgentEvent['type'];
