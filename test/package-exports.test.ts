import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string | { types: string; import: string }> };
const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) => (typeof target === 'string' ? [] : [{ subpath, target }]));
const importName = (subpath: string) => (subpath === '.' ? 'loopchart' : `loopchart/${subpath.slice(2)}`);
const sourceOf = (built: string) => built.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');

describe('the package entry points (package.json "exports")', () => {
  it('each subpath is built from a source file, and its types sit beside its code', () => {
    for (const { target } of entries) {
      expect(existsSync(sourceOf(target.import)), target.import).toBe(true);
      expect(target.types).toBe(target.import.replace(/\.js$/, '.d.ts'));
    }
  });

  it('tsconfig "paths" resolve every import name to the source the package builds it from', () => {
    const config = ts.readConfigFile('tsconfig.json', (path) => ts.sys.readFile(path)).config as { compilerOptions: { paths: Record<string, string[]> } };
    const expected = Object.fromEntries(entries.map(({ subpath, target }) => [importName(subpath), [sourceOf(target.import)]]));
    expect(config.compilerOptions.paths).toEqual(expected);
  });

  it('the root keeps to the agent, its options, events, results, stores and errors: test models, tools, reports and the inspector are subpaths', async () => {
    const root = await import('loopchart');
    for (const moved of ['scriptedModel', 'recordModel', 'builtinTools', 'renderTraceReport', 'startPlaybackServer', 'createWebSocketInspector', 'textToolProtocol', 'agentMachine', 'toAISDKAgent', 'connectMcpTools']) {
      expect(root, moved).not.toHaveProperty(moved);
    }
    expect((await import('loopchart/test')).scriptedModel).toBeTypeOf('function');
    expect((await import('loopchart/tools')).builtinTools).toBeTypeOf('function');
    expect((await import('loopchart/report')).renderTraceReport).toBeTypeOf('function');
    expect((await import('loopchart/report')).startPlaybackServer).toBeTypeOf('function');
    expect((await import('loopchart/inspect')).createWebSocketInspector).toBeTypeOf('function');
    expect((await import('loopchart/text-tools')).textToolProtocol).toBeTypeOf('function');
    expect((await import('loopchart/machine')).agentMachine).toBeDefined();
    expect((await import('loopchart/ai-sdk')).toAISDKAgent).toBeTypeOf('function');
    expect((await import('loopchart/mcp')).connectMcpTools).toBeTypeOf('function');
  });
});
