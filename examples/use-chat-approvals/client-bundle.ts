import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * page-client.ts and what it imports from `ai`, bundled into one ES module
 * for the browser, so that the page needs no CDN and no build step of its
 * own. esbuild comes with tsx, which runs the example.
 */
export async function bundleChatClient(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page-client.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
