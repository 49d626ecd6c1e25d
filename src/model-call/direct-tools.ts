import type { ToolSet } from 'ai';
import { aiInternals } from './ai-internals.js';

type PreparedTools = Awaited<ReturnType<typeof aiInternals.prepareTools>>;

interface CacheEntry {
  names: string[];
  tools: unknown[];
  /** Each tool's `inputSchema` when the list was prepared (the costly part, compared by identity). */
  schemas: unknown[];
  /** Each tool's other fields that `prepareTools` sends, as JSON when the list was prepared. */
  fields: string[];
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
 * same tool objects under the same names, each with the same `inputSchema` and
 * the same fields the provider is sent (`description`, `inputExamples`,
 * `providerOptions`, `strict`, a provider tool's `id` and `args`): a tool changed
 * in place between calls is sent as it is now, as `streamText` sends it. Never
 * for a set with a tool whose `description` is a function (it may depend on
 * context). Each call gets its own array.
 */
export async function prepareToolsOnce(tools: ToolSet): Promise<PreparedTools> {
  const names = Object.keys(tools);
  const values = names.map((name) => tools[name]);
  const cached = cache.get(tools);
  if (cached !== undefined && isUnchanged(cached, names, values)) return cached.prepared?.slice();
  const prepared = await aiInternals.prepareTools({ tools });
  if (values.every((tool) => typeof tool?.description !== 'function')) {
    cache.set(tools, { names, tools: values, schemas: values.map((tool) => tool?.inputSchema), fields: values.map(sentFields), prepared });
    return prepared?.slice();
  }
  return prepared;
}

/** The fields of a tool that `prepareTools` sends besides its schema, as JSON. */
function sentFields(tool: ToolSet[string] | undefined): string {
  if (tool === undefined) return '';
  const { type, description, inputExamples, providerOptions, strict, id, args } = tool as Record<string, unknown>;
  return JSON.stringify([type, description, inputExamples, providerOptions, strict, id, args]);
}

function isUnchanged(entry: CacheEntry, names: string[], values: Array<ToolSet[string] | undefined>): boolean {
  if (names.length !== entry.names.length) return false;
  for (let i = 0; i < names.length; i++) {
    const tool = values[i];
    if (names[i] !== entry.names[i] || tool !== entry.tools[i] || tool?.inputSchema !== entry.schemas[i] || sentFields(tool) !== entry.fields[i]) return false;
  }
  return true;
}
