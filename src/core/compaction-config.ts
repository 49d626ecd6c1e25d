/** `createAgent({ compaction })`. */
export interface CompactionConfig {
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Room kept free for the answer: compaction starts above `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** The newest messages worth this many tokens stay verbatim. */
  keepRecentTokens: number;
  /** The newest tool outputs worth this many tokens are never pruned. */
  protectToolOutputTokens: number;
  /** Compactions per run; beyond that the run ends `context-limit`. */
  maxCompactions: number;
  /** The summariser's system prompt. */
  instructions?: string;
}

export const defaultCompactionConfig: Omit<CompactionConfig, 'contextWindow'> = {
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
  protectToolOutputTokens: 40_000,
  maxCompactions: 2,
};

/** The largest context a call may be made with. */
export function contextBudget(config: CompactionConfig): number {
  return config.contextWindow - config.reserveTokens;
}

export type CompactionReason = 'threshold' | 'length' | 'overflow';
