/** How a run ended. Every run ends in exactly one outcome. */
export type Outcome =
  | 'completed'
  | 'max-steps'
  | 'doom-loop'
  | 'aborted'
  | 'failed'
  | 'context-limit'
  | 'content-filter'
  | 'timeout'
  | 'denied';

/**
 * What went wrong, as data. `kind` classifies the failure; later policies
 * (retries) key on it.
 */
export type ErrorKind =
  | 'rate-limit'
  | 'overloaded'
  | 'server'
  | 'network'
  | 'stream'
  | 'timeout'
  | 'context-overflow'
  | 'auth'
  | 'invalid-request'
  | 'invalid-response'
  /** The final answer did not parse or did not match the agent's `output` schema (`Output.object({ schema })`). */
  | 'invalid-output'
  | 'aborted'
  /** The session store could not write a step boundary (disk full, read-only, deleted, another writer): the run stops rather than go on undurably. */
  | 'session-write'
  | 'unknown';

export interface RunError {
  kind: ErrorKind;
  message: string;
  /** HTTP status of a provider error, when there was one. */
  status?: number;
  /** The wait the provider asked for (`retry-after-ms` / `retry-after`), when it did. */
  retryAfterMs?: number;
  /** `false` when the provider said a retry cannot succeed (e.g. OpenAI's `insufficient_quota`); such an error is never retried. */
  retryable?: boolean;
}
