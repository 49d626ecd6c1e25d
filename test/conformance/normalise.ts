import { DefaultGeneratedFile } from 'ai';
/** Keys whose string values are generated ids: replaced by their order of first appearance. */
const ID_KEYS = new Set(['id', 'messageId', 'approvalId', 'callId', 'operationId']);
/** Keys that hold timings or request bodies: they differ from run to run, so they are left out. */
const DROPPED_KEYS = new Set(['performance', 'request', 'durationMs', 'toolExecutionMs', 'headers', 'body', 'timestamp', 'providerMetadata']);

/**
 * What an app observes, as plain JSON with nothing that differs from run to run: generated ids
 * become `#1`, `#2`, … in order of first appearance (so a chunk's id still matches its start's),
 * timings and timestamps go, errors become `{ error: name, message }`.
 */
export function normalise(value: unknown): unknown {
  const ids = new Map<string, string>();
  const idFor = (id: string) => {
    let mapped = ids.get(id);
    if (mapped === undefined) ids.set(id, (mapped = `#${ids.size + 1}`));
    return mapped;
  };
  const walk = (node: unknown, key: string | undefined): unknown => {
    if (typeof node === 'string') return key !== undefined && ID_KEYS.has(key) ? idFor(node) : node;
    if (typeof node === 'function') return '<function>';
    if (node === null || typeof node !== 'object') return node;
    if (node instanceof Date) return '<date>';
    if (node instanceof Error) return { error: node.name, message: node.message };
    // A generated file by what it offers (its bytes, its media type), not by which form it happens to cache.
    if (node instanceof DefaultGeneratedFile) return { base64: node.base64, mediaType: node.mediaType };
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(node)) {
      if (DROPPED_KEYS.has(name) || child === undefined) continue;
      out[name] = walk(child, name);
    }
    return out;
  };
  return walk(value, undefined);
}

export interface Difference {
  path: string;
  toolLoop: unknown;
  loopchart: unknown;
}

/** Where two normalised values differ, path by path (`rounds.0.chunks.3.type`). */
export function differences(toolLoop: unknown, loopchart: unknown, path = ''): Difference[] {
  if (Object.is(toolLoop, loopchart)) return [];
  const bothObjects = typeof toolLoop === 'object' && toolLoop !== null && typeof loopchart === 'object' && loopchart !== null;
  if (!bothObjects || Array.isArray(toolLoop) !== Array.isArray(loopchart)) return [{ path, toolLoop, loopchart }];
  const left = toolLoop as Record<string, unknown>;
  const right = loopchart as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].flatMap((key) => differences(left[key], right[key], path === '' ? key : `${path}.${key}`));
}
