import type { ToolSet } from 'ai';
import { aiInternals } from './ai-internals.js';

type PreparedTools = Awaited<ReturnType<typeof aiInternals.prepareTools>>;
type PreparedTool = NonNullable<PreparedTools>[number];
type Tool = ToolSet[string];

interface CacheEntry {
  /** The tool's `inputSchema` when its entry was prepared (the costly part, compared by identity). */
  schema: unknown;
  /** The tool's other fields that `prepareTools` sends, as JSON when its entry was prepared. */
  fields: string;
  prepared: PreparedTool;
}

/** Each tool object's prepared entry, by the name it was prepared under (one tool may serve under several names). */
const cache = new WeakMap<Tool, Map<string, CacheEntry>>();

/**
 * The AI SDK's `prepareTools` (tool set → the provider's tool list), computed
 * once per tool instead of once per model call.
 *
 * `prepareTools` converts every tool's `inputSchema` to JSON Schema on every
 * call (`asSchema(...).jsonSchema` makes a new wrapper, so nothing is reused).
 * Each tool's entry is cached on the tool object, under its name, so the
 * conversion is made once whether the agent passes the same `ToolSet` to every
 * step or an application builds a fresh set per agent around shared tools
 * (`tools: { ...shared }`). An entry is used only while the tool still has the
 * same `inputSchema` and the same fields the provider is sent (`description`,
 * `inputExamples`, `providerOptions`, `strict`, a provider tool's `id` and
 * `args`): a tool changed in place between calls is sent as it is now, as
 * `streamText` sends it. When any tool of the set has no usable entry, the
 * whole set is prepared by `prepareTools` (so its order and errors are
 * `prepareTools`' own) and the entries are stored. Never for a tool whose
 * `description` is a function (it may depend on context). Each call gets its
 * own array.
 */
export async function prepareToolsOnce(tools: ToolSet): Promise<PreparedTools> {
  const names = Object.keys(tools);
  if (names.length === 0) return aiInternals.prepareTools({ tools });
  const cached = cachedEntries(tools, names);
  if (cached !== undefined) return cached;
  const prepared = await aiInternals.prepareTools({ tools });
  if (prepared !== undefined && prepared.length === names.length) {
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const tool = tools[name];
      // prepareTools keeps the set's order without a toolOrder; an entry under another name is not stored.
      if (!isCacheable(tool) || prepared[i]?.name !== name) continue;
      let byName = cache.get(tool);
      if (byName === undefined) cache.set(tool, (byName = new Map<string, CacheEntry>()));
      byName.set(name, { schema: tool.inputSchema, fields: sentFields(tool), prepared: prepared[i]! });
    }
  }
  return prepared;
}

/** The set's prepared list from the cache, or undefined when a tool has no usable entry. */
function cachedEntries(tools: ToolSet, names: string[]): PreparedTools {
  const list: PreparedTool[] = [];
  for (const name of names) {
    const tool = tools[name];
    if (!isCacheable(tool)) return undefined;
    const entry = cache.get(tool)?.get(name);
    if (entry === undefined || tool.inputSchema !== entry.schema || sentFields(tool) !== entry.fields) return undefined;
    list.push(entry.prepared);
  }
  return list;
}

function isCacheable(tool: Tool | undefined): tool is Tool {
  return typeof tool === 'object' && tool !== null && typeof tool.description !== 'function';
}

/** The fields of a tool that `prepareTools` sends besides its schema, as JSON. */
function sentFields(tool: Tool): string {
  const { type, description, inputExamples, providerOptions, strict, id, args } = tool as Record<string, unknown>;
  return JSON.stringify([type, description, inputExamples, providerOptions, strict, id, args]);
}
