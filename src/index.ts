export { createAgent, AgentBusyError, ApprovalError, type Agent, type Prompt } from './agent.js';
export type { ApprovalPolicy, ApprovalRules, ApprovalRule, ApprovalFunction, ApprovalDecision, ApprovalContext } from './approval/approval-policy.js';
export type { AgentHooks, BeforeLLMCallArgs, AfterLLMCallArgs, BeforeToolCallArgs, AfterToolCallArgs, LLMCallReplacements, BeforeToolCallDecision, ToolResultReplacement } from './hooks.js';
export { agentMachine, type AgentMachine, type AgentMachineEvent } from './machines/agent-machine.js';
export type { AgentContext, AgentConfig, AgentMachineInput, RunState } from './machines/context.js';
export { agentImplementations } from './implementations.js';
export type { AgentRuntime } from './runtime.js';
export type { AgentEvent, AgentEventType } from './events.js';
export type { Outcome, RunResult, RunError, ErrorKind } from './result.js';
export { AgentOptionsError, type AgentOptions } from './options.js';
export type { StepFunction, StepRequest, StepPart, StepToolCall } from './actors/step.js';
export { streamLanguageModelCallStep } from './actors/stream-language-model-call-step.js';
export { classifyError } from './errors/classify-error.js';
export { scriptedModel, scriptTurnSchema, pullStream, recordModel, type ScriptedModel, type ScriptTurn, type ModelRecording } from './models/index.js';
export { directStep } from './actors/direct-step.js';
export type { RunTrace, TraceState, TraceTransition, TraceStep, TraceToolCall, TraceRetry, TraceCompaction, TraceHook } from './trace/run-trace.js';
export { machineGraph, type MachineGraph, type GraphNode, type GraphEdge } from './machines/machine-graph.js';
export { builtinTools, builtinToolNames, type BuiltinToolName, type BuiltinToolsOptions } from './tools/index.js';
export { toMermaid } from './machines/mermaid.js';
export {
  textToolProtocol,
  ToolTagParser,
  readToolArguments,
  formatToolCall,
  formatToolResult,
  type TextToolProtocolOptions,
  type TextToolCall,
  type ToolTagEvent,
  type ToolArguments,
  type ToolArgumentsStatus,
  type ToolResultText,
} from './middleware/index.js';
export { atMentions, DEFAULT_MENTION_DIRECTORY_ENTRIES, type AtMentionsOptions, type PromptTransform } from './context/at-mentions.js';
export type { ContextTransform } from './runtime.js';
export type { CompactionConfig, CompactionReason } from './context/compaction-config.js';
export { fileStore, type FileStoreOptions } from './persistence/file-store.js';
export { forkSession } from './persistence/fork-session.js';
export type { CheckpointInfo } from './persistence/session-recorder.js';
export {
  SessionFormatError,
  SessionConflictError,
  SessionMissingError,
  type SessionVersion,
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  type SessionStore,
  type SessionLog,
  type SessionHeader,
  type SessionRecord,
  type MessageRecord,
  type HistoryRecord,
  type CheckpointRecord,
} from './persistence/session-store.js';
export {
  agentInspectorOptions,
  createBrowserInspector,
  createSkyInspector,
  createWebSocketInspector,
  startInspectorRelay,
  type SafeInspectorOptions,
  type AgentInspector,
  type InspectorRelay,
  type InspectorRelayOptions,
} from './inspect/index.js';
export { toAISDKAgent, newMessages } from './interop/ai-sdk-agent.js';
export { jsonErrorAwareFetch } from './interop/json-error-fetch.js';
export { agentTool, type AgentToolOptions, type SubagentOutput } from './subagents/agent-tool.js';
export { renderTraceReport, parseRunTrace, TraceFormatError, type TraceReportOptions } from './report/index.js';
