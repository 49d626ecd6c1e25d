import type { AgentEvent } from '../core/events.js';
import { warningKey, warningText } from '../trace/call-warnings.js';

/**
 * What the CLI says of the provider's call warnings: a line for each distinct warning, the first
 * time a run's model call reports it (every call of a run repeats the same ones), and nothing for
 * the other events. A new run starts afresh.
 *
 * @example
 * const notices = callWarningNotices();
 * notices({ type: 'model-call-start', runId: 'r', step: 1, attempt: 1, model: { provider: 'openai-compatible.chat', modelId: 'qwen' }, warnings: [{ type: 'unsupported', feature: 'topK' }] });
 * // ['warning from openai-compatible.chat / qwen: The feature "topK" is not supported.']
 */
export function callWarningNotices(): (event: AgentEvent) => string[] {
  let runId: string | undefined;
  let seen = new Set<string>();
  return (event) => {
    if (event.type !== 'model-call-start' || event.warnings.length === 0) return [];
    if (event.runId !== runId) {
      runId = event.runId;
      seen = new Set();
    }
    const source = event.model ? ` from ${event.model.provider} / ${event.model.modelId}` : '';
    const lines: string[] = [];
    for (const warning of event.warnings) {
      const key = warningKey(warning);
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(`warning${source}: ${warningText(warning)}`);
    }
    return lines;
  };
}
