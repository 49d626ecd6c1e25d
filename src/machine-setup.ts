import { getChunkTimeoutMs, getFirstChunkTimeoutMs, getStepTimeoutMs, getTotalTimeoutMs, type StopCondition, type ToolSet } from 'ai';
import type { AgentEvent } from './core/events.js';
import { implementationsOf } from './machine/implementations.js';
import type { AgentConfig, TimeoutConfig } from './machine/context.js';
import { withConfigDefaults } from './machine/config-defaults.js';
import type { AgentImplementations } from './machine/shared-agent-machine.js';
import type { AgentOptions } from './options.js';
import type { HookTiming } from './core/run-trace.js';
import type { AgentRuntime } from './core/runtime.js';
import { hasToolApproval } from './approval/tool-approval.js';

/** What the agent (not its options) gives the machine's actors: where events go, and where it runs. */
export interface AgentWiring {
  /** Receives the events that do not go through a transition (deltas, tool updates, hook errors). */
  emit: (event: AgentEvent) => void;
  /** Whether anything hears what `emit` gives (a subscriber to the agent's `events$`). */
  isHeard?: AgentRuntime['isHeard'];
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
  /** Where the sub-agents its tools start live (the agent's session). */
  subagents?: AgentRuntime['subagents'];
}

/** The machine's two halves for one agent's options; see {@link machineSetup}. */
export interface MachineSetup {
  /** The configuration (plain data, every default applied): the actor's input, and part of every snapshot. */
  config: AgentConfig;
  /** The actor implementations bound to the model, tools, hooks and policies, with what the agent wires in. */
  implementations(wiring: AgentWiring): AgentImplementations;
}

/**
 * From validated options to the machine: the only code that reads `AgentOptions` on the way to
 * it. The config is made now (its defaults applied by `withConfigDefaults`, the one place they
 * are); the implementations — the prepare, llm, tools, approval, compaction and stopCondition
 * actors — when asked (`createAgent` asks when its actor first invokes one). Option normalisations
 * both halves need (the `stopWhen` list) are made once, here.
 *
 * @example
 * ```ts
 * const setup = machineSetup(options);
 * const actor = createActor(sharedAgentMachine, { input: { config: setup.config, messages } });
 * bindImplementations(actor, () => setup.implementations({ emit, traceHook, depth: 0 }));
 * ```
 */
export function machineSetup(options: AgentOptions): MachineSetup {
  const stopConditions = options.stopWhen === undefined ? [] : [options.stopWhen].flat();
  return {
    config: machineConfig(options, stopConditions.length > 0),
    implementations: (wiring) => machineImplementations(options, stopConditions, wiring),
  };
}

function machineImplementations(options: AgentOptions, stopConditions: ReadonlyArray<StopCondition<ToolSet>>, wiring: AgentWiring): AgentImplementations {
  const compactionModel = options.compaction ? options.compaction.model : undefined;
  // Runtime defaults (no tools, no hooks, directStep) are agentImplementations' own.
  return implementationsOf({
    model: options.model,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.step ? { step: options.step } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.transformContext ? { transformContext: options.transformContext } : {}),
    ...(options.transformPrompt ? { transformPrompt: options.transformPrompt } : {}),
    ...(compactionModel ? { compactionModel } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.toolApproval ? { toolApproval: options.toolApproval } : {}),
    ...(options.prepareStep ? { prepareStep: options.prepareStep } : {}),
    ...(options.output ? { output: options.output } : {}),
    stopConditions,
    ...wiring,
  });
}

/** The machine's configuration (plain data) from the agent's options: only what the options say, completed by `withConfigDefaults`. */
function machineConfig(options: AgentOptions, hasStopConditions: boolean): AgentConfig {
  const { doomLoop, compaction } = options;
  return withConfigDefaults({
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(doomLoop === false ? { doomLoopThreshold: 0 } : {}),
    ...(doomLoop && doomLoop.threshold !== undefined ? { doomLoopThreshold: doomLoop.threshold } : {}),
    ...(doomLoop && doomLoop.action !== undefined ? { doomLoopAction: doomLoop.action } : {}),
    ...(options.toolExecution ? { toolExecution: options.toolExecution } : {}),
    ...(options.maxToolCallsPerStep !== undefined ? { maxToolCallsPerStep: options.maxToolCallsPerStep } : {}),
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    timeouts: timeoutConfig(options.timeout),
    ...(options.truncation !== undefined ? { truncation: options.truncation } : {}),
    ...(compaction ? { compaction: withoutModel(compaction) } : {}),
    // A guard reads it: whether a step's calls pass through `approving` (loopchart's policy, or the AI SDK's
    // toolApproval or a tool's needsApproval). The policy itself is an actor.
    hasApprovalPolicy: options.approval !== undefined || hasToolApproval(options.tools ?? {}, options.toolApproval),
    // Likewise: whether a finished tool step passes through `checkingStop`. The conditions are an actor.
    ...(hasStopConditions ? { hasStopConditions: true } : {}),
    ...(options.onDeny ? { onDeny: options.onDeny } : {}),
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.steeringMode ? { steeringMode: options.steeringMode } : {}),
    ...(options.followUpMode ? { followUpMode: options.followUpMode } : {}),
  });
}

/** The compaction option's data: its `model` is the compaction actor's, not the config's. */
function withoutModel(compaction: Exclude<AgentOptions['compaction'], false | undefined>) {
  const { model: _model, ...data } = compaction;
  return data;
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
