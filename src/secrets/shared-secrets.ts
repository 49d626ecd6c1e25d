/**
 * Secrets an agent hands to a sink it was given (its `inspect` observer), so that the agent's
 * `secrets` option is the one place they are named: the sink redacts them along with any of its
 * own. Keyed by the sink object itself; a sink shared by several agents redacts all their secrets.
 */
const secretsBySink = new WeakMap<object, Set<string>>();

/**
 * Tells `sink` to redact `secrets` too. Does nothing without secrets.
 *
 * @example
 * ```ts
 * shareSecrets(options.inspect, ['sk-live-123456']);
 * ```
 */
export function shareSecrets(sink: object, secrets: readonly string[]): void {
  if (secrets.length === 0) return;
  let shared = secretsBySink.get(sink);
  if (!shared) secretsBySink.set(sink, (shared = new Set()));
  for (const secret of secrets) shared.add(secret);
}

/**
 * The secrets agents handed to `sink`, with `own` (the sink's own option) first; `own` itself when
 * no agent handed any.
 *
 * @example
 * ```ts
 * const secrets = sharedSecrets(observer, ownSecrets); // read per batch: an agent may share them after the sink is made
 * ```
 */
export function sharedSecrets(sink: object, own: readonly string[] = []): readonly string[] {
  const shared = secretsBySink.get(sink);
  return shared === undefined ? own : [...new Set([...own, ...shared])];
}
