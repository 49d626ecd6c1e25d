import type { ToolSet } from 'ai';
import { aiInternals } from './ai-internals.js';

type PreparedTools = Awaited<ReturnType<typeof aiInternals.prepareTools>>;

interface CacheEntry {
  names: string[];
  tools: unknown[];
  prepared: PreparedTools;
}

const cache = new WeakMap<ToolSet, CacheEntry>();

/**
 * The AI SDK's `prepareTools` (tool set → the provider's tool list), computed
 * once per tool set instead of once per model call.
 *
 * `prepareTools` converts every tool's `inputSchema` to JSON Schema on every
 * call (`asSchema(...).jsonSchema` makes a new wrapper, so nothing is reused);
 * an agent passes the same `ToolSet` object to every step, so the result is
 * cached on that object. The cache is used only while the set still holds the
 * same tool objects under the same names, and never for a set with a tool whose
 * `description` is a function (it may depend on context). Each call gets its
 * own array.
 */
export async function prepareToolsOnce(tools: ToolSet): Promise<PreparedTools> {
  const cached = cache.get(tools);
  if (cached !== undefined && isUnchanged(cached, tools)) return cached.prepared?.slice();
  const prepared = await aiInternals.prepareTools({ tools });
  const names = Object.keys(tools);
  const values = names.map((name) => tools[name]);
  if (values.every((tool) => typeof tool?.description !== 'function')) {
    cache.set(tools, { names, tools: values, prepared });
    return prepared?.slice();
  }
  return prepared;
}

function isUnchanged(entry: CacheEntry, tools: ToolSet): boolean {
  const names = Object.keys(tools);
  if (names.length !== entry.names.length) return false;
  for (let i = 0; i < names.length; i++) {
    if (names[i] !== entry.names[i] || tools[names[i]!] !== entry.tools[i]) return false;
  }
  return true;
}
