import { defaultCompactionConfig } from '../core/compaction-config.js';
import { defaultRetryConfig } from '../resilience/retry-policy.js';
import { defaultTruncationConfig } from '../resilience/truncate-output.js';
import { defaultConfig, type AgentConfig, type AgentConfigInput } from './context.js';

export type { AgentConfigInput } from './context.js';

/**
 * The one place the machine's defaults are applied: every field left out takes `defaultConfig`'s
 * value, and `retry`, `truncation` and `compaction` given in part are completed from theirs. A
 * field left out shares the default object itself (every agent that leaves retry alone holds the
 * same one: the context is never changed in place). Applying it twice changes nothing. Pure.
 *
 * @example
 * ```ts
 * withConfigDefaults({ maxSteps: 5, retry: { maxAttempts: 1 } }).retry // { maxAttempts: 1, baseDelayMs: 2000, maxDelayMs: 30000 }
 * ```
 */
export function withConfigDefaults(given: AgentConfigInput = {}): AgentConfig {
  const { retry, truncation, compaction, ...rest } = given;
  return {
    ...defaultConfig,
    ...rest,
    retry: retry === undefined || retry === defaultRetryConfig ? defaultRetryConfig : { ...defaultRetryConfig, ...retry },
    truncation: truncation === false ? false : truncation === undefined || truncation === defaultTruncationConfig ? defaultTruncationConfig : { ...defaultTruncationConfig, ...truncation },
    compaction: compaction === undefined || compaction === false ? false : { ...defaultCompactionConfig, ...compaction },
  };
}
