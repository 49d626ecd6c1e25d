// The resolve hook of bench/as-built.mjs: a TypeScript module of src/ is loaded from dist/, as tsc built it.
const source = new URL('../src/', import.meta.url).href;
const built = new URL('../dist/', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const url = new URL(resolved.url);
  if (!url.href.startsWith(source) || !url.pathname.endsWith('.ts')) return resolved;
  const path = url.pathname.slice(new URL(source).pathname.length).replace(/\.ts$/, '.js');
  return { url: new URL(path, built).href, format: 'module', shortCircuit: true };
}
