// The root: the agent, its options, events, results, stores and errors. The rest is in subpaths:
// loopchart/test, loopchart/tools, loopchart/report, loopchart/inspect, loopchart/text-tools,
// loopchart/machine, loopchart/ai-sdk, loopchart/postgres, loopchart/redis and loopchart/dbos
// (see docs/embedding.md and docs/scale-out.md).
export { createAgent, AgentBusyError, AgentDisposedError, ApprovalError, type Agent, type Prompt } from './agent.js';
export { AgentOptionsError, type AgentOptions, type AgentTimeout, type InspectionObserver, type LeaseOptions } from './options.js';
export type { TelemetryOptions, TelemetryTracer } from './telemetry/telemetry-options.js';
export type { ApprovalPolicy, ApprovalRules, ApprovalRule, ApprovalFunction, ApprovalDecision, ApprovalContext } from './approval/approval-policy.js';
export type { AgentHooks, BeforeLLMCallArgs, AfterLLMCallArgs, BeforeToolCallArgs, AfterToolCallArgs, LLMCallReplacements, BeforeToolCallDecision, ToolResultReplacement } from './core/callbacks.js';
export type { AgentEvent, AgentEventType } from './core/events.js';
export type { Outcome, RunResult, RunError, ErrorKind } from './core/result.js';
export type { UsageCost } from './core/cost.js';
export { isCostOver } from './cost/is-cost-over.js';
export type { RunTrace, TraceState, TraceTransition, TraceStep, TraceToolCall, TraceRetry, TraceCompaction, TraceHook } from './core/run-trace.js';
export { classifyError } from './errors/classify-error.js';
export { SecretsOptionError, type SecretList } from './secrets/secret-list.js';
export type { StepFunction, StepRequest, StepPart, StepToolCall, GeneratedStepFile } from './core/step.js';
export { directStep } from './model-call/direct-step.js';
export { streamLanguageModelCallStep } from './model-call/stream-language-model-call-step.js';
export { atMentions, DEFAULT_MENTION_DIRECTORY_ENTRIES, type AtMentionsOptions, type PromptTransform } from './context/at-mentions.js';
export type { ContextTransform } from './core/runtime.js';
export type { CompactionConfig, CompactionReason } from './core/compaction-config.js';
export { agentTool, type AgentToolOptions, type SubagentOutput } from './subagents/agent-tool.js';
export { fileStore, type FileStoreOptions } from './persistence/file-store.js';
export { forkSession } from './persistence/fork-session.js';
export { readSessionView, type SessionView } from './persistence/session-view.js';
export type { CheckpointInfo } from './persistence/session-recorder.js';
export { openSessionRecord, type SessionRecordView, type RecordedRun, type TimelinePoint, type ModelCallRecord, type CheckpointSummary } from './time-travel/session-record.js';
export { contextAt } from './time-travel/context-at.js';
export { runOnFork } from './playback/run-on-fork.js';
export { StoreTimeoutError } from './persistence/store-timeout-error.js';
export {
  SessionFormatError,
  SessionConflictError,
  SessionMissingError,
  LeaseHeldError,
  LeaseLostError,
  type SessionVersion,
  type AppendOptions,
  type SessionLease,
  type SessionLeases,
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  type SessionStore,
  type SessionLog,
  type SessionHeader,
  type SessionRecord,
  type MessageRecord,
  type HistoryRecord,
  type CheckpointRecord,
  type TraceContextRecord,
  type TimelineRecord,
  type TimelineTuple,
  type ModelCallLogRecord,
  type TraceRecord,
} from './persistence/session-store.js';
export { advanceSession, SessionInputError, type AdvanceSessionOptions, type AdvanceSessionResult, type SessionInput } from './scale/advance-session.js';
export { assertSessionRequest, SessionRequestError, type SessionRequest } from './scale/session-request.js';
export { SessionNotDurableError } from './scale/session-not-durable-error.js';
export { EventNotPublishedError, EVENT_NOT_PUBLISHED_WARNING } from './scale/event-publishing.js';
export { SessionSupersededError } from './scale/session-attempts.js';
export { isRetryableSessionError } from './scale/retryable-error.js';
export { assertSessionId, sessionIdProblem, SESSION_ID_RULE } from './persistence/session-id.js';
export type { PendingApproval } from './machine/approval-updates.js';
