/**
 * The id of a text or reasoning block in `stream()`'s parts (`text-start`, `text-delta`, …): one
 * per step, attempt, kind and the model's own block id, so that no two attempts share a block.
 */
export function streamBlockId(step: number, attempt: number, kind: 'text' | 'reasoning', id: string): string {
  return `${step}-${attempt}-${kind}-${id}`;
}
