// The resolve hook of bench/as-built.mjs: a module that resolves into src/ is loaded from dist/.
const source = new URL('../src/', import.meta.url).href;
const built = new URL('../dist/', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(source)) return resolved;
  return { url: `${built}${resolved.url.slice(source.length).replace(/\.ts$/, '.js')}`, format: 'module', shortCircuit: true };
}
