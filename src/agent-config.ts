import { defaultCompactionConfig, type CompactionConfig } from './context/compaction-config.js';
import { defaultConfig, type AgentConfig } from './machines/context.js';
import type { AgentOptions } from './options.js';
import { defaultRetryConfig } from './resilience/retry-policy.js';
import { defaultTruncationConfig } from './resilience/truncate-output.js';

/** The machine's configuration (plain data) from the agent's options. */
export function machineConfig(options: AgentOptions): AgentConfig {
  return {
    ...defaultConfig,
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.doomLoop !== undefined ? { doomLoopThreshold: options.doomLoop === false ? 0 : (options.doomLoop.threshold ?? 3) } : {}),
    ...(options.doomLoop ? { doomLoopAction: options.doomLoop.action ?? 'stop' } : {}),
    ...(options.toolExecution ? { toolExecution: options.toolExecution } : {}),
    ...(options.maxToolCallsPerStep !== undefined ? { maxToolCallsPerStep: options.maxToolCallsPerStep } : {}),
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    retry: { ...defaultRetryConfig, ...options.retry },
    timeouts: options.timeouts ?? {},
    truncation: options.truncation === false ? false : { ...defaultTruncationConfig, ...options.truncation },
    compaction: compactionConfig(options.compaction),
    hasApprovalPolicy: options.approval !== undefined,
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
