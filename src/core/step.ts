import type { CallWarning, FinishReason, LanguageModel, LanguageModelUsage, ModelMessage, Output, SystemModelMessage, ToolChoice, ToolSet } from 'ai';
import type { LanguageModelV4File, LanguageModelV4ReasoningFile, LanguageModelV4Source } from '@ai-sdk/provider';
import type { ProviderMetadata, ToolResultPart } from 'ai';

/**
 * The seam between the machine and the model: one step is exactly one model
 * call. A step function performs it and yields its parts; it never loops,
 * never retries and never executes tools — the machine owns all of that.
 */
export type StepFunction = (request: StepRequest) => AsyncIterable<StepPart>;

export interface StepRequest {
  model: LanguageModel;
  instructions?: string | SystemModelMessage | SystemModelMessage[];
  messages: ModelMessage[];
  tools: ToolSet;
  /** The run's structured output (`Output.object({ schema })`): its `responseFormat` goes with the call. */
  output?: Output.Output;
  /** Which tool the model must or may call (`prepareStep`'s `toolChoice`); the provider's default without one. */
  toolChoice?: ToolChoice<ToolSet>;
  abortSignal: AbortSignal;
}

/** A file the model generated, or one of its reasoning, as the provider streams it. */
export type GeneratedStepFile = LanguageModelV4File | LanguageModelV4ReasoningFile;

/** A tool call as the model made it, parsed and validated against the tool's `inputSchema`. */
export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  /** The parsed input; for an invalid call, whatever could be parsed (or the raw text). */
  input: unknown;
  /** Set when the tool is unknown or the input failed validation; `error` says why. */
  invalid?: boolean;
  error?: string;
  /** The AI SDK's name for the error (`AI_NoSuchToolError`, `AI_InvalidToolInputError`). */
  errorName?: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * The parts a step yields, ending with a `finish` part, or with nothing more
 * once it has yielded an `error` part. An `error` part does not end the call
 * by itself: the llm actor reads on, and the call fails only when no real
 * finish follows — the stream just stops, or its `finish` says `interrupted`
 * or `error` (see `failedFinish`); then it is a failed attempt of kind
 * `stream` (or of the error part's own kind), retried per the retry policy.
 */
export type StepPart =
  /** The provider's stream began; `warnings` are the call's (unsupported settings and the like). */
  | { type: 'stream-start'; warnings: CallWarning[] }
  /** What the provider said of its response: its id, the model that answered, when. */
  | { type: 'response-metadata'; id?: string; modelId?: string; timestamp?: Date }
  /** The model began writing a tool call's input, and wrote a piece of it. */
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  /** The model began writing the input of a tool its provider runs (see `provider-tool-call`); its deltas are `tool-input-delta`s. */
  | { type: 'provider-tool-input-start'; id: string; toolName: string }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; text: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-call'; toolCall: StepToolCall }
  /**
   * A call of a tool the provider runs itself (`providerExecuted`: OpenAI's or Anthropic's web
   * search, code execution). The machine does not run it and waits for no result of its own: the
   * provider's `provider-tool-result` answers it, and both go into the step's assistant message, as
   * in the AI SDK's history. `dynamic` when the provider says so (a tool not in the tool set).
   */
  | { type: 'provider-tool-call'; toolCall: StepToolCall; dynamic?: true }
  /**
   * The provider's result of its own tool call: `result` as the provider gave it, `output` as the
   * history keeps it (the AI SDK's conversion: the tool's `toModelOutput`, `text` or `json`; an
   * error is `error-json`).
   */
  | {
      type: 'provider-tool-result';
      toolCallId: string;
      toolName: string;
      result: unknown;
      output: ToolResultPart['output'];
      isError?: true;
      providerMetadata?: ProviderMetadata;
    }
  /** A source the model cited (a web page, a document), as the provider gave it. */
  | LanguageModelV4Source
  /**
   * A file the model generated (an image, audio), or one of its reasoning, as the provider gave
   * it: its bytes (`{ type: 'data' }`, base64 or raw) or a URL (`{ type: 'url' }`, not downloaded).
   */
  | GeneratedStepFile
  | {
      type: 'finish';
      finishReason: FinishReason;
      rawFinishReason?: string;
      usage: LanguageModelUsage;
    }
  | { type: 'error'; error: unknown };
