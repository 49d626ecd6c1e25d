import { getChunkTimeoutMs, getFirstChunkTimeoutMs, getStepTimeoutMs, getTotalTimeoutMs } from 'ai';
import { defaultCompactionConfig, type CompactionConfig } from './context/compaction-config.js';
import type { AgentEvent } from './events.js';
import { agentImplementations } from './implementations.js';
import { defaultConfig, type AgentConfig, type TimeoutConfig } from './machines/context.js';
import type { AgentOptions } from './options.js';
import type { HookTiming } from './trace/run-trace.js';
import type { AgentRuntime } from './runtime.js';
import { defaultRetryConfig } from './resilience/retry-policy.js';
import { defaultTruncationConfig } from './resilience/truncate-output.js';
import { hasToolApproval } from './approval/tool-approval.js';

/** What the agent (not its options) gives the machine's actors: where events go, and where it runs. */
export interface AgentWiring {
  /** Receives the events that do not go through a transition (deltas, tool updates, hook errors). */
  emit: (event: AgentEvent) => void;
  /** Receives every hook's timing, for the run trace. */
  traceHook: (timing: HookTiming) => void;
  /** How deep the agent runs in a tree of sub-agents (0 at the top). */
  depth: number;
  /** Runs each tool's `execute` (telemetry: inside its span). */
  runToolCall?: AgentRuntime['runToolCall'];
  /** Waited for before every model call and tool (a session's last boundary written, its lease held). */
  admit?: AgentRuntime['admit'];
  /** The run's steps so far, for `prepareStep`. */
  runSteps?: AgentRuntime['runSteps'];
}

/**
 * From validated options to the machine's actors: the prepare, llm, tools, approval, compaction
 * and stopCondition actors bound to the model, tools, hooks and policies (not data).
 * `createAgent` builds them when its actor first invokes one; `machineConfig` gives the data half.
 * Nothing else reads `AgentOptions` on the way to an actor.
 *
 * @example
 * ```ts
 * const actor = createActor(sharedAgentMachine, { input: { config: machineConfig(options), messages } });
 * bindImplementations(actor, () => machineImplementations(options, { emit, traceHook, depth: 0 }));
 * ```
 */
export function machineImplementations(options: AgentOptions, wiring: AgentWiring) {
  const compactionModel = options.compaction ? options.compaction.model : undefined;
  return agentImplementations({
      model: options.model,
      tools: options.tools ?? {},
      ...(options.step ? { step: options.step } : {}),
      hooks: options.hooks ?? {},
      ...(options.transformContext ? { transformContext: options.transformContext } : {}),
      ...(options.transformPrompt ? { transformPrompt: options.transformPrompt } : {}),
      ...(compactionModel ? { compactionModel } : {}),
      ...(options.approval ? { approval: options.approval } : {}),
      ...(options.toolApproval ? { toolApproval: options.toolApproval } : {}),
      ...(options.prepareStep ? { prepareStep: options.prepareStep } : {}),
      ...(options.output ? { output: options.output } : {}),
      stopConditions: stopConditions(options.stopWhen),
      ...wiring,
    });
}

/** The machine's configuration (plain data) from the agent's options; every default comes from `defaultConfig`. */
export function machineConfig(options: AgentOptions): AgentConfig {
  const { doomLoop } = options;
  return {
    ...defaultConfig,
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(doomLoop === false ? { doomLoopThreshold: 0 } : {}),
    ...(doomLoop ? { doomLoopThreshold: doomLoop.threshold ?? defaultConfig.doomLoopThreshold, doomLoopAction: doomLoop.action ?? defaultConfig.doomLoopAction } : {}),
    ...(options.toolExecution ? { toolExecution: options.toolExecution } : {}),
    ...(options.maxToolCallsPerStep !== undefined ? { maxToolCallsPerStep: options.maxToolCallsPerStep } : {}),
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    // The defaults themselves when an option is not set: every agent shares them (the context is never changed in place).
    retry: options.retry ? { ...defaultRetryConfig, ...options.retry } : defaultRetryConfig,
    timeouts: timeoutConfig(options.timeout),
    truncation: options.truncation === false ? false : options.truncation ? { ...defaultTruncationConfig, ...options.truncation } : defaultTruncationConfig,
    compaction: compactionConfig(options.compaction),
    // A guard reads it: whether a step's calls pass through `approving` (loopchart's policy, or the AI SDK's
    // toolApproval or a tool's needsApproval). The policy itself is an actor.
    hasApprovalPolicy: options.approval !== undefined || hasToolApproval(options.tools ?? {}, options.toolApproval),
    // Likewise: whether a finished tool step passes through `checkingStop`. The conditions are an actor.
    ...(stopConditions(options.stopWhen).length > 0 ? { hasStopConditions: true } : {}),
    ...(options.onDeny ? { onDeny: options.onDeny } : {}),
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.steeringMode ? { steeringMode: options.steeringMode } : {}),
    ...(options.followUpMode ? { followUpMode: options.followUpMode } : {}),
  };
}

function compactionConfig(option: AgentOptions['compaction']): CompactionConfig | false {
  if (!option) return false;
  const { model: _model, ...data } = option;
  return { ...defaultCompactionConfig, ...data };
}

/** The AI SDK's timeout shape (a number, or per-tool limits named `<tool>Ms`) as the machine's plain limits, keyed by tool name. */
const NO_TIMEOUTS: TimeoutConfig = Object.freeze({});

function timeoutConfig(timeout: AgentOptions['timeout']): TimeoutConfig {
  if (timeout === undefined) return NO_TIMEOUTS;
  const limits: Array<[keyof TimeoutConfig, number | undefined]> = [
    ['totalMs', getTotalTimeoutMs(timeout)],
    ['stepMs', getStepTimeoutMs(timeout)],
    ['firstChunkMs', getFirstChunkTimeoutMs(timeout)],
    ['chunkMs', getChunkTimeoutMs(timeout)],
  ];
  const config: TimeoutConfig = Object.fromEntries(limits.filter(([, ms]) => ms !== undefined));
  if (typeof timeout === 'number') return config;
  if (timeout.toolMs !== undefined) config.toolMs = timeout.toolMs;
  if (timeout.hookMs !== undefined) config.hookMs = timeout.hookMs;
  const tools = Object.entries(timeout.tools ?? {}).flatMap(([key, ms]) => (typeof ms === 'number' ? [[key.slice(0, -'Ms'.length), ms] as const] : []));
  if (tools.length > 0) config.tools = Object.fromEntries(tools);
  return config;
}

function stopConditions(stopWhen: AgentOptions['stopWhen']) {
  return stopWhen === undefined ? [] : Array.isArray(stopWhen) ? stopWhen : [stopWhen];
}
