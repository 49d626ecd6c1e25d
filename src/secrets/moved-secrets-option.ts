import { SecretsOptionError } from './secret-list.js';

/**
 * Refuses a sink's old `redact` option (`fileStore`, `pgStore`, `redisEventPublisher`): secrets are
 * given once, to the agent, and reach every sink from there. Refused rather than ignored, so that
 * no one believes a secret is kept out that is not.
 *
 * @example
 * ```ts
 * refuseMovedRedactOption(options, 'fileStore'); // throws SecretsOptionError when options.redact is there
 * ```
 */
export function refuseMovedRedactOption(options: unknown, sink: string): void {
  // Options that are no object are refused by the sink's own check.
  if (typeof options !== 'object' || options === null || !('redact' in options) || options.redact === undefined) return;
  throw new SecretsOptionError(
    `${sink} options.redact`,
    'secrets are given once, to the agent: createAgent({ secrets }) (or the agent options of advanceSession and registerSessionWorkflows); what the agent writes and reports reaches every sink with them redacted',
  );
}
