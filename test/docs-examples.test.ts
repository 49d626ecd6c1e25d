import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from './cli/support/cli-process.js';

/**
 * What the docs take as given, as ambient declarations: the app's model, tools, agent and the like.
 * A block that uses anything else must import it. The app's tools are its own (the README's weather
 * tool), not any `ToolSet`: an example that names a tool (`bash`, `read`) must bring it.
 */
const GIVEN = `
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { LanguageModel, ModelMessage } from 'ai';
import type { Agent } from 'loopchart';
import type { AppTools } from './tools.js';
declare global {
  const model: LanguageModel;
  const cheaperModel: LanguageModel;
  const someTextOnlyModel: LanguageModelV4;
  const tools: AppTools;
  const agent: Agent;
  const agents: Map<string, Agent>;
  const apiKey: string;
  const signal: AbortSignal;
  const socket: { send(data: string): void; on(event: 'message', listener: (raw: unknown) => void): void };
  function redact(messages: ModelMessage[]): ModelMessage[];
}
`;

/** Modules the docs import from the app itself (\`./tools.js\`: "your ToolSet"). */
const APP_MODULES: Record<string, string> = {
  'tools.ts': [
    "import type { Tool } from 'ai';",
    'export type AppTools = { weather: Tool<{ city: string }, { city: string; celsius: number }> };',
    'export declare const tools: AppTools;',
    '',
  ].join('\n'),
};

/** A block without imports is a fragment of an app: it gets the names of the root as well. */
const FRAGMENT_PRELUDE = "import { agentTool, ApprovalError, atMentions, createAgent, fileStore } from 'loopchart';\n";

interface Example {
  /** Where the block is: `docs/x.md:12`. */
  where: string;
  /** The virtual file the block is checked as. */
  fileName: string;
  source: string;
  /** Lines added before the block (the fragment prelude). */
  offset: number;
}

function examples(): Example[] {
  const documents = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];
  return documents.flatMap((document) => {
    const markdown = readFileSync(document, 'utf8');
    return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => {
      const line = markdown.slice(0, match.index).split('\n').length + 1;
      const code = match[1]!;
      const prelude = /^\s*import /m.test(code) ? '' : FRAGMENT_PRELUDE;
      return {
        where: `${document}:${line}`,
        fileName: resolve(`.docs-examples/${document.replace(/[/.]/g, '-')}-${index}.ts`),
        source: prelude + code,
        offset: prelude.split('\n').length - 1,
      };
    });
  });
}

/**
 * The `@example`s of the sources' JSDoc that import from the package (`from 'loopchart'` or a
 * subpath): what an app would copy, so they are checked as the docs' blocks are, against the built
 * package (a name imported from the root that only a subpath exports fails here).
 */
function jsdocExamples(): Example[] {
  const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  return files.flatMap((name) => {
    const file = join('src', name);
    const source = readFileSync(file, 'utf8');
    return [...source.matchAll(/@example\n\s*\* ```ts\n([\s\S]*?)\n\s*\* ```/g)].flatMap((match, index) => {
      const code = match[1]!.replace(/^\s*\* ?/gm, '');
      if (!/^import .* from 'loopchart(\/[a-z-]+)?';$/m.test(code)) return [];
      const line = source.slice(0, match.index).split('\n').length + 2;
      return [{ where: `${file}:${line}`, fileName: resolve(`.docs-examples/${file.replace(/[/.]/g, '-')}-${index}.ts`), source: code, offset: 0 }];
    });
  });
}

/**
 * Type-checks every block in memory with the project's compiler options, as an app that installed
 * the package would: without the project's `paths`, `loopchart` and its subpaths resolve through
 * package.json "exports" (the blocks sit inside the package, so by its own name) to the built
 * declarations in dist/.
 */
function typeCheck(blocks: Example[]): { errors: string[]; projectFiles: string[] } {
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve('tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const config = { ...parsed, options: { ...parsed.options, paths: undefined } };
  const sources = new Map<string, string>([
    [resolve('.docs-examples/given.d.ts'), `${GIVEN}export {};\n`],
    ...Object.entries(APP_MODULES).map(([name, source]): [string, string] => [resolve(`.docs-examples/${name}`), source]),
    ...blocks.map((block): [string, string] => [block.fileName, block.source]),
  ]);
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, directoryExists } = host;
  const virtualDirectory = resolve('.docs-examples');
  host.directoryExists = (name) => name === virtualDirectory || (directoryExists?.(name) ?? ts.sys.directoryExists(name));
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => sources.get(fileName) ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: [...sources.keys()], options: { ...config.options, noEmit: true }, host });
  const root = resolve('.');
  const projectFiles = program
    .getSourceFiles()
    .map((file) => relative(root, file.fileName))
    .filter((file) => !file.startsWith('..') && !file.startsWith('node_modules') && !file.startsWith('.docs-examples'));
  const errors = blocks.flatMap((block) => {
    const file = program.getSourceFile(block.fileName);
    if (!file) return [`${block.where}: not compiled`];
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${block.where} (+${line - block.offset}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  });
  return { errors, projectFiles };
}

describe('the examples in README.md and docs/', () => {
  beforeAll(() => buildCli(), 600_000);

  it('every TypeScript block type-checks as written, in an app with its own tools, against the built package', () => {
    const blocks = examples();
    expect(blocks.length).toBeGreaterThan(10);
    const { errors, projectFiles } = typeCheck(blocks);
    expect(errors).toEqual([]);
    // The package as installed: its declarations, never its sources.
    expect(projectFiles).toContain('dist/index.d.ts');
    expect(projectFiles.filter((file) => file.startsWith('src/'))).toEqual([]);
  }, 120_000);

  it("every JSDoc @example that imports from the package type-checks, its names imported from the subpath that exports them", () => {
    const blocks = jsdocExamples();
    expect(blocks.length).toBeGreaterThan(5);
    expect(typeCheck(blocks).errors).toEqual([]);
  }, 120_000);
});
