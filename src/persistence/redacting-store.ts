import type { SessionStore } from '../persistence/session-store.js';
import { redactValue } from '../secrets/redact.js';

/**
 * The store as the agent writes to it when it has `secrets`: every record (and the session's
 * header) has them replaced by `[redacted]` before the store sees it, whatever the store is
 * (`fileStore`, `pgStore`, your own). Reads and leases go to the store unchanged. Without
 * secrets, the store itself.
 *
 * @example
 * ```ts
 * const store = redactingStore(fileStore('.sessions'), ['sk-live-123456']);
 * ```
 */
export function redactingStore(store: SessionStore, secrets: readonly string[]): SessionStore {
  if (secrets.length === 0) return store;
  return {
    read: (sessionId) => store.read(sessionId),
    create: (header) => store.create(redactValue(header, secrets)),
    append: (sessionId, records, options) => store.append(sessionId, redactValue(records, secrets), options),
    ...(store.leases ? { leases: store.leases } : {}),
  };
}
