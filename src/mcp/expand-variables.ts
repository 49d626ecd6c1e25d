/** `${NAME}` or `${NAME:-default}`, as Claude Code's `.mcp.json` writes environment variables. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A value of a config that names a variable with no value and no default. */
export interface UnsetVariable {
  /** Where in the config, e.g. `mcpServers.github.env.GITHUB_TOKEN`. */
  path: string;
  name: string;
}

/**
 * Every string in `value` (objects and arrays walked, keys left alone) with its `${NAME}` and
 * `${NAME:-default}` replaced by the variable's value from `env`; the default stands in when the
 * variable is unset or empty. Variables with neither are listed in `unset`, each with its path;
 * their text is left as it was. Pure.
 *
 * @example
 * expandVariables({ url: '${HOST:-http://127.0.0.1:3000}/mcp' }, {}) // { value: { url: 'http://127.0.0.1:3000/mcp' }, unset: [] }
 */
export function expandVariables(value: unknown, env: Readonly<Record<string, string | undefined>>, path = ''): { value: unknown; unset: UnsetVariable[] } {
  const unset: UnsetVariable[] = [];
  const expanded = mapStrings(value, path, (text, at) =>
    text.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      unset.push({ path: at, name });
      return whole;
    }),
  );
  return { value: expanded, unset };
}

/** Every `${NAME}` and `${NAME:-default}` in the strings of `value`, with its path: the variables `expandVariables` would read. Pure. */
export function namedVariables(value: unknown, path = ''): UnsetVariable[] {
  const found: UnsetVariable[] = [];
  mapStrings(value, path, (text, at) => {
    for (const match of text.matchAll(VARIABLE)) found.push({ path: at, name: match[1]! });
    return text;
  });
  return found;
}

/** `value` with each of its strings (objects and arrays walked, keys left alone) given to `map` with its path. */
function mapStrings(value: unknown, path: string, map: (text: string, at: string) => string): unknown {
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') return map(node, at);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, `${at}.${index}`));
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child, at === '' ? key : `${at}.${key}`)]));
    return node;
  };
  return walk(value, path);
}
