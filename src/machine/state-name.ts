/** A state value as a dotted path of its active leaf: `{ running: { llm: 'calling' } }` → `running.llm.calling`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  // The first own key, without Object.entries' arrays: the trace asks this of every microstep.
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (Object.hasOwn(record, key)) return `${key}.${stateName(record[key])}`;
  }
  return '?.';
}

/**
 * Whether a run chart's state value is `running.awaitingApproval`: what
 * `snapshot.matches({ running: 'awaitingApproval' })` says, read from the value itself (the session
 * asks it of every snapshot, and `matches` builds both state paths each time).
 */
export function isAwaitingApproval(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const running = (value as { running?: unknown }).running;
  return running === 'awaitingApproval' || (typeof running === 'object' && running !== null && 'awaitingApproval' in running);
}
