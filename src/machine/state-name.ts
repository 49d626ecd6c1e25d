/** A state value as a dotted path of its active leaf: `{ running: { llm: 'calling' } }` → `running.llm.calling`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', ''];
  return `${key}.${stateName(child)}`;
}
