import { MAX_TIMER_MS } from './core/max-timer-ms.js';
import type { Instructions, LanguageModel, ModelMessage, Output, PrepareStepFunction, StopCondition, TimeoutConfiguration, ToolSet } from 'ai';
import { z } from 'zod';
import { approvalRulesSchema } from './approval/approval-rules-schema.js';
import { functionOption } from './core/function-option.js';
import { messageShapeProblem, SYSTEM_IN_HISTORY } from './core/message-shape.js';
import type { InspectionEvent, Observer } from 'xstate';
import type { StepFunction } from './core/step.js';
import type { ApprovalFunction, ApprovalPolicy } from './approval/approval-policy.js';
import type { ToolApproval } from './approval/tool-approval.js';
import { defaultCompactionConfig } from './core/compaction-config.js';
import type { AgentHooks } from './core/callbacks.js';
import type { PromptTransform } from './context/at-mentions.js';
import type { SessionStore } from './persistence/session-store.js';
import { sessionIdSchema } from './persistence/session-id.js';
import type { ContextTransform } from './core/runtime.js';
import type { RetryConfig } from './resilience/retry-policy.js';
import type { TruncationLimits } from './tools/truncate.js';
import { telemetryOptionsSchema, type TelemetryOptions } from './telemetry/telemetry-options.js';
import type { SecretList } from './secrets/secret-list.js';

/**
 * The AI SDK's `TimeoutConfiguration` plus `hookMs`, the time limit of one hook, and `storeMs`, the
 * time limit of one call of the session's store (the AI SDK has neither hooks around calls nor a
 * store, so it has no fields for them).
 *
 * @example
 * ```ts
 * timeout: { totalMs: 600_000, chunkMs: 30_000, toolMs: 120_000, tools: { bashMs: 300_000 }, hookMs: 5_000, storeMs: 10_000 }
 * ```
 */
export type AgentTimeout<TOOLS extends ToolSet = ToolSet> = number | (Exclude<TimeoutConfiguration<TOOLS>, number> & { hookMs?: number; storeMs?: number });

export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Options of {@link createAgent}. */
export interface AgentOptions<TOOLS extends ToolSet = ToolSet, OUTPUT = unknown> {
  /** Any AI SDK language model: `openai.chat('…')`, `MockLanguageModelV4`, `scriptedModel(...)`, … */
  model: LanguageModel;
  /** The system prompt: the AI SDK's `Instructions` (a string, a system message or several). */
  instructions?: Instructions;
  /** AI SDK tools: `tool({ description, inputSchema: z.object(…), execute })`. Their types flow into events. */
  tools?: TOOLS;
  /** LLM calls per run. Default 25. Reaching it ends the run `max-steps`. */
  maxSteps?: number;
  /**
   * The AI SDK's stop conditions, checked after each step whose tool results are in:
   * `isStepCount(n)`, `hasToolCall('finalAnswer')` or your own `({ steps }) => boolean | Promise<boolean>`.
   * When one holds the run ends `completed` (finishReason `tool-calls`). Conditions read `stepNumber`,
   * `text`, `finishReason`, `usage`, `toolCalls` and `toolResults` of each step; a throw ends the run `failed`.
   *
   * @example
   * ```ts
   * import { hasToolCall, isStepCount } from 'ai';
   * createAgent({ model, tools, stopWhen: [hasToolCall('finalAnswer'), isStepCount(10)] });
   * ```
   */
  stopWhen?: StopCondition<NoInfer<TOOLS>> | Array<StopCondition<NoInfer<TOOLS>>>;
  /**
   * Structured output, as `ToolLoopAgent`'s `output`: the AI SDK's `Output.object({ schema })` (or
   * `Output.array`, `Output.choice`, `Output.json`). Its `responseFormat` goes with every call; the
   * run's final answer (a step that stops without tool calls) is parsed and validated and becomes
   * `result.output`. An answer that does not parse or match is a failed attempt of kind
   * `invalid-output`: asked again at once while `retry.maxAttempts` allows, then the run ends `failed`.
   *
   * @example
   * ```ts
   * import { Output } from 'ai';
   * const agent = createAgent({ model, tools, output: Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) }) });
   * const { output } = await agent.run('How warm is it in Oslo?'); // { city: string; celsius: number } | undefined
   * ```
   */
  output?: Output.Output<OUTPUT>;
  /** Initial history. */
  messages?: ModelMessage[];
  /**
   * Ends the run with outcome `doom-loop` when the same tool is called with the
   * same input (key order and whitespace do not matter) in `threshold`
   * consecutive steps. Default `{ threshold: 3 }`; `false` disables it.
   */
  doomLoop?: { threshold?: number; action?: 'stop' | 'ask' } | false;
  /**
   * Which tool calls need a person's approval: a function `(toolCall, ctx) => 'allow' | 'deny' | 'ask'`
   * (may be async) or rules of tool-name globs. Default: every call is allowed.
   */
  approval?: ApprovalPolicy;
  /**
   * The AI SDK's `toolApproval`, as `ToolLoopAgent` takes it: a status per tool (`'user-approval'`,
   * `'approved'`, `{ type: 'denied', reason }`, `'not-applicable'`), a function per tool of its input, or
   * one function for every call. Tools' own `needsApproval` (`true` or a function of the input) is honoured
   * too, `toolApproval` first. `user-approval` waits in `awaitingApproval` like `approval`'s `ask` (durable:
   * it survives a restart); with `approval` as well, the stricter decision holds.
   *
   * @example
   * ```ts
   * createAgent({ model, tools: { pay, read }, toolApproval: { pay: ({ amount }) => (amount > 100 ? 'user-approval' : undefined) } });
   * ```
   */
  toolApproval?: ToolApproval<NoInfer<TOOLS>>;
  /** What a denied call does: the model sees the denial and goes on (`continue`, default), or the run ends `denied` (`stop`). */
  onDeny?: 'continue' | 'stop';
  /** Denies calls still waiting for an answer after this long. Default: wait until answered or aborted. */
  approvalTimeoutMs?: number;
  /** Steering messages delivered per step boundary: one (default) or all that wait. */
  steeringMode?: 'one-at-a-time' | 'all';
  /** Follow-ups delivered when a run would complete: one (default) or all that wait. */
  followUpMode?: 'one-at-a-time' | 'all';
  /** Run a step's tool calls at once (`parallel`, default) or one after another. Results enter the history in call order either way. */
  toolExecution?: 'parallel' | 'sequential';
  /**
   * The most tool calls one step runs. Default 128. The calls beyond it are not run: each gets an
   * error result that tells the model to make fewer calls per step, and the run goes on.
   */
  maxToolCallsPerStep?: number;
  /** Retries of failed LLM calls. Default `{ maxAttempts: 3, baseDelayMs: 2000, maxDelayMs: 30000 }`. */
  retry?: Partial<RetryConfig>;
  /**
   * Time limits, shaped like the AI SDK's `timeout` (`TimeoutConfiguration`): a number is the
   * whole run (`totalMs`); an object sets `totalMs`, `stepMs`, `firstChunkMs`, `chunkMs`, `toolMs`
   * and per tool `tools: { bashMs: 60_000 }`, plus loopchart's `hookMs` (one hook). Each is off
   * unless set. `storeMs` bounds each read and write of the session's `store`: past it the call
   * fails with a `StoreTimeoutError` (default 30 s). See docs/resilience.md.
   */
  timeout?: AgentTimeout<NoInfer<TOOLS>>;
  /** What the model sees of a tool result at most. Default `{ maxLines: 2000, maxBytes: 51200 }`; `false` sends results whole. */
  truncation?: (Partial<TruncationLimits> & { tools?: Record<string, Partial<TruncationLimits>> }) | false;
  /**
   * Context compaction (off by default): above `contextWindow - reserveTokens` old tool outputs are
   * pruned first, then older messages are summarised. See docs/context.md.
   */
  compaction?:
    | {
        contextWindow: number;
        reserveTokens?: number;
        keepRecentTokens?: number;
        protectToolOutputTokens?: number;
        maxCompactions?: number;
        /** The summariser; default the agent's model. */
        model?: LanguageModel;
        /** The summariser's system prompt. */
        instructions?: string;
      }
    | false;
  /**
   * Runs once per run on the prompt's messages before they enter the history (for example
   * `atMentions({ cwd })`, which inlines `@file` references). A throw ends the run `failed`.
   */
  transformPrompt?: PromptTransform;
  /** Runs before every LLM call on what the model will see (trim, inject, redact) without changing the stored history. A throw fails the call. */
  transformContext?: ContextTransform;
  /**
   * The AI SDK's `prepareStep`, as `ToolLoopAgent` calls it: before each step's model call (once per
   * step, not again for a retried attempt), with the run's `steps` so far, the `stepNumber` (from 0),
   * the `model`, `instructions`, `messages` and the run's `initialMessages` and
   * `responseMessages`. What it returns applies to that step's call: `model`, `instructions` (or the
   * older `system`), `messages`, `activeTools` and `toolChoice`. Unlike `ToolLoopAgent`, returned
   * `messages` and `instructions` do not carry over to later steps: the agent's history and
   * `instructions` stay what is stored, so a resumed session sees what it saw (use `transformContext`
   * for a view every call gets). Any other field it returns (call settings, `toolsContext`,
   * `providerOptions`, …) fails the call with an error naming it; so does a throw.
   * @example
   * ```ts
   * createAgent({ model, tools, prepareStep: ({ stepNumber }) => (stepNumber >= 3 ? { activeTools: [], instructions: 'Answer now.' } : undefined) });
   * ```
   */
  prepareStep?: PrepareStepFunction<NoInfer<TOOLS>>;
  /** Hooks around LLM and tool calls. See `AgentHooks`. */
  hooks?: AgentHooks;
  /** Where the session is kept (`fileStore(dir)` or your own `SessionStore`). With it the agent writes every step boundary and resumes from it. */
  store?: SessionStore;
  /** The session to start or resume (with `store`). Default: a new random id. */
  sessionId?: string;
  /**
   * Hold the session's lease while the agent has it open (with a `store` that has `leases`, as
   * `fileStore` and `pgStore` do): taken before the session is read, renewed every third of `ttlMs`,
   * released by `dispose()`. Every write is fenced with the lease's epoch, and before every model
   * call and tool the agent checks that the lease is held (renewing it then if its time has passed):
   * if another owner takes the session (this process paused past the lease), or the lease runs out
   * while the store is out of reach, the run ends `failed` (`session-write`) at once, before any
   * further model call or tool, instead of working beside the new owner.
   * `createAgent` rejects `ready()` and `run()` with `LeaseHeldError` while another owner holds it.
   */
  lease?: LeaseOptions;
  /** An XState inspection observer (for example the Stately inspector's `inspector.inspect`). */
  inspect?: InspectionObserver;
  /**
   * Replaces how one model call is made (see `StepFunction`). Default: `directStep`, which reads the
   * provider stream itself with the AI SDK's own prompt and tool-call helpers;
   * `streamLanguageModelCallStep` goes through `experimental_streamLanguageModelCall`.
   */
  step?: StepFunction;
  /**
   * OpenTelemetry spans of every run, with the GenAI semantic conventions' attributes: an
   * `invoke_agent` span per run, a `chat` span per model call, an `execute_tool` span per tool call,
   * and `approval`, `retry` and `compaction` spans (see docs/telemetry.md). Needs `@opentelemetry/api`.
   *
   * @example
   * ```ts
   * createAgent({ model, tools, telemetry: { tracer: trace.getTracer('my-app'), functionId: 'support-bot' } });
   * ```
   */
  telemetry?: TelemetryOptions;
  /**
   * Values that must never leave the agent (API keys, tokens), named once here: each is replaced by
   * `[redacted]` in everything the agent hands on — its events (so `events$`, the `run()` result and
   * its `trace`, and what `advanceSession` passes to `onEvent`, such as a Redis stream), what it
   * writes to its `store` (session files, Postgres rows), what its `inspect` observer sends (the
   * inspector helpers of `loopchart/inspect` take them from the agent) and its telemetry spans.
   * What the model sees and the history in memory (`agent.messages`) are not changed. An
   * `undefined` or empty entry (a variable that is not set) is left out; secrets shorter than
   * eight characters are not redacted.
   *
   * @example
   * ```ts
   * createAgent({ model, tools, store: fileStore('.sessions'), secrets: [process.env.OPENAI_API_KEY] });
   * ```
   */
  secrets?: SecretList;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

// A string id ("openai/gpt-4o") would go to the AI SDK's hosted gateway, which needs its own key and
// fails each call with an auth error: refused here with a message that says what to pass instead.
const modelSchema = z.custom<LanguageModel>(
  (value) => isObject(value) && typeof value.doStream === 'function' && typeof value.specificationVersion === 'string',
  {
    error: (issue) =>
      typeof issue.input === 'string'
        ? `a model id string ("${issue.input}") is not supported: pass a provider's model object, for example openai.chat("gpt-4o-mini") from @ai-sdk/openai`
        : 'expected an AI SDK LanguageModel (for example openai.chat("gpt-4o-mini") or a MockLanguageModelV4)',
  },
);

const historyMessageProblem = (value: unknown) => messageShapeProblem(value) ?? ((value as ModelMessage).role === 'system' ? SYSTEM_IN_HISTORY : undefined);
const messageSchema = z.custom<ModelMessage>((value) => historyMessageProblem(value) === undefined, {
  error: (issue) => `not a message of the history: ${historyMessageProblem(issue.input) ?? 'invalid'}`,
});

/** What `toolSearch()` marks its tool with; `streamText` binds that tool's search to the generation. */
const TOOL_SEARCH = Symbol.for('vercel.ai.toolSearch');

/**
 * A tool field of the AI SDK's that a loopchart agent cannot honour: refused with what to do
 * instead, as `ToolLoopAgent` would otherwise behave differently without a word.
 */
function unhonouredToolField(tool: Record<PropertyKey, unknown>): string | undefined {
  if (tool[TOOL_SEARCH] === true) {
    return "toolSearch() is not supported: it works only inside the AI SDK's own generation (called from a loopchart agent it throws), and loopchart sends every tool to the model on every step; give the agent the tools it may use, or choose them per step with prepareStep's activeTools";
  }
  if (tool.contextSchema !== undefined) {
    return "contextSchema is not supported: a loopchart agent gives tools no context (it takes no toolsContext; execute gets {}), where ToolLoopAgent checks the context it is given against this schema; give the tool what it needs through its closure, and leave contextSchema out";
  }
  if (tool.deferLoading === true) {
    return "deferLoading: true is not supported: loopchart has no tool search and sends every tool to the model on every step, where ToolLoopAgent would hide this one until toolSearch() finds it; leave deferLoading out, or choose the tools per step with prepareStep's activeTools";
  }
  return undefined;
}

const toolSchema = z
  .custom<ToolSet[string]>((value) => isObject(value) && 'inputSchema' in value, {
    message: 'expected an AI SDK tool: tool({ description, inputSchema, execute })',
  })
  .superRefine((tool, context) => {
    const refusal = unhonouredToolField(tool);
    if (refusal !== undefined) context.addIssue({ code: 'custom', message: refusal });
  });

const positiveMs = z.number().positive().max(MAX_TIMER_MS);

/** `timeout` of `createAgent` (and of the CLI's config files): a number is the whole run, an object sets each limit. */
export const agentTimeoutSchema = z
  .union([
    positiveMs,
    z
      .object({
        totalMs: positiveMs.optional(),
        stepMs: positiveMs.optional(),
        firstChunkMs: positiveMs.optional(),
        chunkMs: positiveMs.optional(),
        toolMs: positiveMs.optional(),
        tools: z
          .record(z.string().regex(/Ms$/, 'a per-tool limit is named <tool name>Ms, as in the AI SDK (for example bashMs)'), positiveMs.optional())
          .optional(),
        hookMs: positiveMs.optional(),
        storeMs: positiveMs.optional(),
      })
      .strict(),
  ])
  .optional();

const truncationLimitsSchema = z
  .object({ maxLines: z.number().int().positive().optional(), maxBytes: z.number().int().positive().optional() })
  .strict();
const hookList = z.array(functionOption<(...args: never[]) => unknown>());

const approvalStatuses = new Set(['not-applicable', 'approved', 'denied', 'user-approval']);
const isToolApprovalEntry = (entry: unknown): boolean =>
  typeof entry === 'function' ||
  (typeof entry === 'string' && approvalStatuses.has(entry)) ||
  (isObject(entry) &&
    approvalStatuses.has(entry.type as string) &&
    (entry.reason === undefined || typeof entry.reason === 'string') &&
    Object.keys(entry).every((key) => key === 'type' || key === 'reason'));

const stopConditionSchema = z.custom<StopCondition<ToolSet>>((value) => typeof value === 'function', {
  message: 'expected a stop condition: isStepCount(n), hasToolCall(name) or ({ steps }) => boolean',
});

const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() }).loose();

/**
 * A schema for each option of `AgentOptions`, no more and no fewer: the type names the options, and
 * this map cannot leave one out or add one it does not name (a compile error). That each schema
 * accepts what its option's type allows is held by `test/options.test-d.ts`.
 */
type OptionSchemas = { [Name in keyof AgentOptions]-?: z.ZodType };

const agentOptionSchemas = {
  model: modelSchema,
  instructions: z.union([z.string(), systemMessageSchema, z.array(systemMessageSchema)]).optional(),
  tools: z.record(z.string(), toolSchema).optional(),
  maxSteps: z.number().int().positive().optional(),
  output: z
    .custom<Output.Output>(
      (value) => isObject(value) && typeof (value as { parseCompleteOutput?: unknown }).parseCompleteOutput === 'function' && 'responseFormat' in value,
      { message: "expected the AI SDK's Output: Output.object({ schema }), Output.array({ element }), Output.choice({ options }) or Output.json()" },
    )
    .optional(),
  stopWhen: z
    .union([stopConditionSchema, z.array(stopConditionSchema)])
    .optional(),
  // By shape, not part by part: a long history must not cost a deep validation per message at creation.
  messages: z.array(messageSchema).optional(),
  doomLoop: z
    .union([z.literal(false), z.object({ threshold: z.number().int().min(2).optional(), action: z.enum(['stop', 'ask']).optional() }).strict()])
    .optional(),
  approval: z
    .union([
      z.custom<ApprovalFunction>((value) => typeof value === 'function'),
      approvalRulesSchema,
    ])
    .optional(),
  toolApproval: z
    .custom<ToolApproval>()
    .superRefine((value, context) => {
      if (typeof value === 'function') return;
      if (!isObject(value)) {
        context.addIssue({ code: 'custom', message: 'expected a function for every call, or a ToolApprovalStatus or function per tool name' });
        return;
      }
      for (const [name, entry] of Object.entries(value)) {
        if (isToolApprovalEntry(entry)) continue;
        context.addIssue({
          code: 'custom',
          path: [name],
          message: "expected a ToolApprovalStatus ('not-applicable', 'approved', 'denied', 'user-approval', or { type, reason }) or a function of the tool's input",
        });
      }
    })
    .optional(),
  onDeny: z.enum(['continue', 'stop']).optional(),
  approvalTimeoutMs: positiveMs.optional(),
  steeringMode: z.enum(['one-at-a-time', 'all']).optional(),
  followUpMode: z.enum(['one-at-a-time', 'all']).optional(),
  toolExecution: z.enum(['parallel', 'sequential']).optional(),
  maxToolCallsPerStep: z.number().int().positive().optional(),
  retry: z
    .object({
      maxAttempts: z.number().int().min(1).optional(),
      baseDelayMs: z.number().nonnegative().optional(),
      maxDelayMs: z.number().nonnegative().optional(),
    })
    .strict()
    .optional(),
  timeout: agentTimeoutSchema,
  truncation: z
    .union([
      z.literal(false),
      truncationLimitsSchema.extend({ tools: z.record(z.string(), truncationLimitsSchema).optional() }).strict(),
    ])
    .optional(),
  compaction: z
    .union([
      z.literal(false),
      z
        .object({
          contextWindow: z.number().int().positive(),
          reserveTokens: z.number().int().nonnegative().optional(),
          keepRecentTokens: z.number().int().nonnegative().optional(),
          protectToolOutputTokens: z.number().int().nonnegative().optional(),
          maxCompactions: z.number().int().nonnegative().optional(),
          model: modelSchema.optional(),
          instructions: z.string().optional(),
        })
        .strict()
        .refine((value) => value.contextWindow > (value.reserveTokens ?? defaultCompactionConfig.reserveTokens), {
          message: 'contextWindow must be larger than reserveTokens',
          path: ['contextWindow'],
        }),
    ])
    .optional(),
  transformPrompt: functionOption<PromptTransform>().optional(),
  transformContext: functionOption<ContextTransform>().optional(),
  prepareStep: z.custom<PrepareStepFunction<ToolSet>>((value) => typeof value === 'function', { message: 'expected a function, as ToolLoopAgent takes it' }).optional(),
  hooks: z
    .object({
      beforeLLMCall: hookList.optional(),
      afterLLMCall: hookList.optional(),
      beforeToolCall: hookList.optional(),
      afterToolCall: hookList.optional(),
    })
    .strict()
    .optional(),
  store: z
    .custom<SessionStore>(
      (value) => isObject(value) && ['read', 'create', 'append'].every((method) => typeof value[method] === 'function'),
      { message: 'expected a SessionStore (read, create, append), for example fileStore(dir)' },
    )
    .optional(),
  sessionId: sessionIdSchema.optional(),
  lease: z
    .object({
      owner: z.string().min(1, 'expected the name of this worker or process'),
      ttlMs: z.number().int().min(100, 'expected at least 100 ms').optional(),
    })
    .strict()
    .optional(),
  inspect: z
    .custom<InspectionObserver>((value) => typeof value === 'function' || (isObject(value) && typeof value.next === 'function'), {
      message: 'expected an XState inspection observer (a function or an object with next())',
    })
    .optional(),
  step: z.custom<StepFunction>((value) => typeof value === 'function', { message: 'expected a step function' }).optional(),
  telemetry: telemetryOptionsSchema.optional(),
  // The value is never in a message: a wrong entry may still be a secret.
  secrets: z
    .array(z.union([z.string(), z.undefined()], { error: 'expected a secret (a string), or undefined for one that is not set' }), {
      error: 'expected an array of secrets (strings)',
    })
    .optional(),
} satisfies OptionSchemas;

export const agentOptionsSchema = z
  .object(agentOptionSchemas)
  .strict()
  .refine((options) => options.sessionId === undefined || options.store !== undefined, {
    message: 'sessionId needs a store to keep the session in',
    path: ['sessionId'],
  })
  .refine((options) => options.lease === undefined || options.store?.leases !== undefined, {
    message: 'lease needs a store with leases (fileStore or pgStore)',
    path: ['lease'],
  });

/** How an agent holds its session's lease (`AgentOptions.lease`). */
export interface LeaseOptions {
  /** Who holds it: this worker's name, unique among the processes sharing the store. */
  owner: string;
  /** How long the lease lasts without a renewal (the time another worker waits after this one dies). Default 30,000 ms. */
  ttlMs?: number;
}

/** Thrown by `createAgent` for invalid options; `issues` names each bad option. */
export class AgentOptionsError extends Error {
  override readonly name = 'AgentOptionsError';
  constructor(readonly issues: ReadonlyArray<{ path: string; message: string }>) {
    super(`Invalid agent options:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`);
  }
}

/** Options renamed to the AI SDK's names: a clear error instead of "unrecognized key". */
const renamedOptions: Record<string, string> = {
  timeouts: 'renamed to timeout (the AI SDK\'s TimeoutConfiguration; per-tool limits are tools: { <tool name>Ms })',
};

/**
 * `ToolLoopAgent` settings loopchart does not honour: refused with what to use instead, never
 * accepted and ignored.
 */
const callSetting = 'not a createAgent option: a call setting goes with the model, e.g. wrapLanguageModel({ model, middleware: defaultSettingsMiddleware({ settings: { … } }) })';
const perCall = (name: string) => `not a createAgent option: pass ${name} to toAISDKAgent(agent).generate() or .stream(), or subscribe to agent.events$`;
export const unsupportedAISDKOptions: Record<string, string> = {
  id: 'not a createAgent option: give the id to toAISDKAgent(agent, { id })',
  prepareCall: 'not supported: build the agent with the options the call needs, or use hooks.beforeLLMCall',
  callOptionsSchema: 'not supported: loopchart agents take no call options',
  toolChoice: 'not a createAgent option: return { toolChoice } from prepareStep for the steps that need it',
  activeTools: 'not a createAgent option: return { activeTools } from prepareStep, or give the agent only the tools it may use',
  experimental_repairToolCall: 'not supported: an invalid call gets an error result the model reads, and it tries again',
  experimental_toolApprovalSecret: 'not needed: approvals wait in the agent (awaitingApproval), not in client-sent messages',
  maxRetries: 'renamed: retry: { maxAttempts } (attempts, 1 + retries)',
  stopSequences: callSetting,
  temperature: callSetting,
  topP: callSetting,
  topK: callSetting,
  seed: callSetting,
  maxOutputTokens: callSetting,
  presencePenalty: callSetting,
  frequencyPenalty: callSetting,
  providerOptions: callSetting,
  headers: callSetting,
  experimental_telemetry: 'not supported: use telemetry: { tracer } (OpenTelemetry spans, see docs/telemetry.md)',
  runtimeContext: 'not supported: tools get what they need from their closure',
  experimental_context: 'not supported: tools get what they need from their closure',
  onStart: perCall('onStart'),
  onStepStart: perCall('onStepStart'),
  onStepFinish: perCall('onStepFinish'),
  onStepEnd: perCall('onStepEnd'),
  onToolExecutionStart: perCall('onToolExecutionStart'),
  onToolExecutionEnd: perCall('onToolExecutionEnd'),
  onFinish: perCall('onFinish'),
  onEnd: perCall('onEnd'),
  experimental_onStart: perCall('onStart'),
  experimental_onStepStart: perCall('onStepStart'),
  onLanguageModelCallStart: 'not a createAgent option: subscribe to agent.events$ (model-call-start, one per attempt), or pass onStepStart to toAISDKAgent(agent).generate() or .stream()',
  onLanguageModelCallEnd: 'not a createAgent option: subscribe to agent.events$ (finish-step), or pass onStepEnd to toAISDKAgent(agent).generate() or .stream()',
  onStepError: 'not a createAgent option: a failed attempt is retried (retry: { maxAttempts }) and reported on agent.events$ (retry); a step that still fails ends the run with outcome failed and result.error',
  allowSystemInMessages: "not supported: a system message cannot join a loopchart agent's history; give it as instructions, or for one step return { instructions } from prepareStep",
  toolOrder: 'not supported: tools are sent in the order of the tools object; give them in the order you want',
  toolCallConcurrency: "not supported: toolExecution: 'sequential' runs a step's tool calls one at a time, 'parallel' (the default) all at once",
  repairToolCall: 'not supported: an invalid call gets an error result the model reads, and it tries again',
  experimental_refineToolInput: "not supported: refine a tool's input in the tool's own execute",
  experimental_toolCallers: 'not supported: loopchart has no tool callers (code mode); the model calls every tool directly',
  experimental_download: 'not supported: give files in the messages as data (bytes or base64)',
  include: "not supported: loopchart's step results keep no request or response bodies; each step's calls are in the run's trace (result.trace)",
  reasoning: callSetting,
  toolsContext: 'not supported: tools get what they need from their closure',
  onError: 'not a createAgent option: a failed run ends with outcome failed and result.error (the adapter rejects with the error)',
  onAbort: 'not a createAgent option: an aborted run ends with outcome aborted',
};

export function parseAgentOptions(options: unknown): AgentOptions {
  const refused = isObject(options) ? Object.keys(unsupportedAISDKOptions).filter((key) => key in options) : [];
  if (refused.length > 0) throw new AgentOptionsError(refused.map((key) => ({ path: key, message: unsupportedAISDKOptions[key] ?? '' })));
  const renamed = isObject(options) ? Object.keys(renamedOptions).filter((key) => key in options) : [];
  if (renamed.length > 0) throw new AgentOptionsError(renamed.map((key) => ({ path: key, message: renamedOptions[key] ?? '' })));
  const parsed = agentOptionsSchema.safeParse(options);
  if (parsed.success) return options as AgentOptions;
  throw new AgentOptionsError(
    parsed.error.issues.flatMap(unionBranchIssues).map((issue) => ({
      path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(options)',
      message: issue.message,
    })),
  );
}

/**
 * An option that takes several shapes (`timeout: number | {…}`) fails as one "invalid input" at the
 * option; when the value has the shape of one branch, that branch's own issues name the field.
 */
function unionBranchIssues(issue: z.core.$ZodIssue): Array<{ path: PropertyKey[]; message: string }> {
  if (issue.code !== 'invalid_union') return [issue];
  const matching = issue.errors.filter((branch) => !branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
  if (matching.length !== 1) return [issue];
  return matching[0]!.map((inner) => ({ path: [...issue.path, ...inner.path], message: inner.message }));
}
