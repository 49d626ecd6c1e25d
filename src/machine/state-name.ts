/** A state value as a dotted path of its active leaf: `{ running: { llm: 'calling' } }` → `running.llm.calling`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', ''];
  return `${key}.${stateName(child)}`;
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
